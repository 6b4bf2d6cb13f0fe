/**
 * Extensions a configuration file manages (docs/configuration.md, Configuration file), as
 * migration 0011 did for deployments, teams and keys: `config_name` marks the row as the file's
 * (null: made through the admin API; it equals the id, which is the entry's name), `source_ref` is
 * the path of the module file the source was read from, so `export` writes it back.
 */
export const sql = `
alter table extensions add column config_name text, add column source_ref text;
`;
