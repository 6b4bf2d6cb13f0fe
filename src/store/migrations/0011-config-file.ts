/**
 * Objects a configuration file manages (`switchyard apply`, docs/configuration.md, Configuration
 * file): `config_name` is the name the file gives the object, its identity across applies, and
 * marks it managed (null: made through the admin API). `secret_ref` keeps the reference a secret
 * came from (`${env:NAME}` or a file path, never a value), so `export` writes it back.
 */
export const sql = `
alter table deployments add column config_name text, add column secret_ref text;
create unique index deployments_config_name on deployments (config_name) where config_name is not null;
alter table teams add column config_name text;
create unique index teams_config_name on teams (config_name) where config_name is not null;
alter table virtual_keys add column config_name text, add column secret_ref text;
create unique index virtual_keys_config_name on virtual_keys (config_name) where config_name is not null;
`;
