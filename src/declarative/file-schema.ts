/**
 * The configuration file (docs/configuration.md, Configuration file): what `switchyard apply` and
 * `CONFIG_FILE` read. Every entry is the admin API's own create body (the same zod schemas), plus
 * `name`, the entry's identity across applies; secrets appear only as references.
 */
import { z } from 'zod';
import { deploymentCreateSchema } from '../deployments/deployment-schemas.ts';
import { EXTENSION_ID_PATTERN, extensionSettingsSchema } from '../extensions/extension-schemas.ts';
import { virtualKeyCreateSchema } from '../keys/virtual-key-schemas.ts';
import { routerSettingsSchema } from '../router/router-settings.ts';
import { teamCreateSchema } from '../teams/team-schemas.ts';

/** `${env:NAME}`: the secret is the environment variable's value when the file is applied. */
export const ENV_REFERENCE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

const LITERAL_SECRET_REFUSED =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown to the operator
  'a literal secret is refused: write ${env:NAME} and set NAME in the environment (or use the file form, apiKeyFile)';

const secretReference = z.string().regex(ENV_REFERENCE, LITERAL_SECRET_REFUSED);

const configName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/,
    'expected 1-128 characters of A-Z a-z 0-9 . _ : - (a letter or digit first)',
  );

/** The id of an object made through the admin API, which this entry then takes over (export writes it). */
const adoptedId = z.string().min(1).max(64).optional();

const deploymentEntry = deploymentCreateSchema
  .omit({ apiKey: true })
  .extend({
    name: configName,
    id: adoptedId,
    apiKey: secretReference.optional(),
    apiKeyFile: z.string().min(1, 'expected a file path').optional(),
  })
  .refine((entry) => entry.apiKey === undefined || entry.apiKeyFile === undefined, {
    error: 'give apiKey or apiKeyFile, not both',
    path: ['apiKeyFile'],
  });

const teamEntry = teamCreateSchema.extend({ name: configName, id: adoptedId });

const keyEntry = virtualKeyCreateSchema.omit({ teamId: true }).extend({
  name: configName,
  id: adoptedId,
  /** The `name` of a team of this file (or of one it adopted). */
  team: configName.optional(),
  /** A pre-shared secret (`sk-sy-...`, at least 32 characters) by reference; absent: one is generated and printed once. */
  secret: secretReference.optional(),
});

/**
 * An extension (variant B): its settings as `/admin/extensions` takes them; `name` is its id, and
 * the module is read from `sourceFile` (relative to the configuration file), never written inline.
 */
const extensionEntry = extensionSettingsSchema.extend({
  name: z
    .string()
    .regex(
      EXTENSION_ID_PATTERN,
      'an extension name is its id: lower-case letters, digits and hyphens, at most 63',
    ),
  sourceFile: z.string().min(1, 'expected a file path'),
});

export const configFileSchema = z
  .strictObject({
    deployments: z.array(deploymentEntry).default([]),
    teams: z.array(teamEntry).default([]),
    keys: z.array(keyEntry).default([]),
    extensions: z.array(extensionEntry).default([]),
    routerSettings: routerSettingsSchema.optional(),
  })
  .superRefine((file, context) => {
    for (const list of ['deployments', 'teams', 'keys', 'extensions'] as const) {
      const seen = new Set<string>();
      file[list].forEach((entry, index) => {
        if (seen.has(entry.name)) {
          context.addIssue({
            code: 'custom',
            path: [list, index, 'name'],
            message: `name "${entry.name}" is used twice`,
          });
        }
        seen.add(entry.name);
      });
    }
    const teams = new Set(file.teams.map((team) => team.name));
    file.keys.forEach((key, index) => {
      if (key.team !== undefined && !teams.has(key.team)) {
        context.addIssue({
          code: 'custom',
          path: ['keys', index, 'team'],
          message: `no team named "${key.team}" in this file`,
        });
      }
    });
  });

export type ConfigFile = z.infer<typeof configFileSchema>;
export type DeploymentEntry = ConfigFile['deployments'][number];
export type TeamEntry = ConfigFile['teams'][number];
export type KeyEntry = ConfigFile['keys'][number];
export type ExtensionEntry = ConfigFile['extensions'][number];
