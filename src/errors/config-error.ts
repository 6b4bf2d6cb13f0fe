/**
 * A setting that cannot be used: the start stops with its one-line message naming the variable and
 * the rule. Here, not in `config.ts`, so the foundation modules that check their own settings (the
 * cache store's URL, the data directory's lock) report through it without importing the whole
 * configuration.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
