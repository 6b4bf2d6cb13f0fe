import { type FSWatcher, watch } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../diagnostics/logger.ts';
import { DEFAULT_EXTENSION_LIMITS, type ExtensionDefinition } from './extension.ts';
import type { ExtensionSource } from './extension-runtime.ts';
import { EXTENSION_ID_PATTERN, extensionSettingsSchema } from './extension-schemas.ts';

/** Module files EXTENSIONS_DIR holds; the settings sit beside each in `<id>.json`. */
const MODULE_FILE = /^(.+)\.(m?js)$/;

/** A burst of writes (an editor's save, a deploy copying files) becomes one reload. */
const RELOAD_DEBOUNCE_MS = 100;

/**
 * Extensions loaded from EXTENSIONS_DIR (DESIGN.md section 2: variant A's only source, variant
 * B's second one): one module per file `<id>.js` (or `.mjs`), its settings in the sidecar
 * `<id>.json` (absent: the defaults). A file that cannot be read or a sidecar that does not
 * validate is logged and left out.
 */
export class DirectoryExtensions implements ExtensionSource {
  readonly name = 'directory';
  readonly #dir: string;
  readonly #logger: Logger;

  constructor(dir: string, logger: Logger) {
    this.#dir = dir;
    this.#logger = logger;
  }

  async load(): Promise<ExtensionDefinition[]> {
    const files = await readdir(this.#dir);
    const definitions: ExtensionDefinition[] = [];
    for (const file of files.sort()) {
      const match = MODULE_FILE.exec(file);
      if (match === null) continue;
      const definition = await this.#definition(match[1], file);
      if (definition !== null) definitions.push(definition);
    }
    return definitions;
  }

  /** Calls `onChange` (debounced) whenever a file of the directory changes; returns a stop function. */
  watch(onChange: () => void): () => void {
    let timer: NodeJS.Timeout | undefined;
    const watcher: FSWatcher = watch(this.#dir, () => {
      clearTimeout(timer);
      timer = setTimeout(onChange, RELOAD_DEBOUNCE_MS);
    });
    watcher.on('error', (error) => this.#logger.warn({ err: error }, 'EXTENSIONS_DIR watch failed'));
    return () => {
      clearTimeout(timer);
      watcher.close();
    };
  }

  async #definition(id: string, file: string): Promise<ExtensionDefinition | null> {
    if (!EXTENSION_ID_PATTERN.test(id)) {
      this.#logger.error(
        { file },
        'EXTENSIONS_DIR: the file name is not an extension id (a slug); not loaded',
      );
      return null;
    }
    try {
      const source = await readFile(join(this.#dir, file), 'utf8');
      const settings = extensionSettingsSchema.safeParse(await this.#sidecar(id));
      if (!settings.success) {
        const problem = settings.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
        this.#logger.error(
          { file: `${id}.json`, problem },
          'EXTENSIONS_DIR: the settings do not validate; not loaded',
        );
        return null;
      }
      const { limits, config, ...rest } = settings.data;
      return {
        id,
        ...rest,
        config: config ?? null,
        source,
        limits: { ...DEFAULT_EXTENSION_LIMITS, ...limits },
        origin: 'directory',
        configName: null,
      };
    } catch (error) {
      this.#logger.error(
        { file, err: (error as Error).message },
        'EXTENSIONS_DIR: cannot read the extension; not loaded',
      );
      return null;
    }
  }

  async #sidecar(id: string): Promise<unknown> {
    try {
      return JSON.parse(await readFile(join(this.#dir, `${id}.json`), 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
  }
}
