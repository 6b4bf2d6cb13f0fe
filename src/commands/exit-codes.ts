/**
 * The CLI's exit statuses (docs/operations.md, The CLI), one meaning each, so a script or a
 * deployment pipeline can tell a bad file from a broken dependency.
 */
export const EXIT = {
  /** Done, or nothing to do. */
  ok: 0,
  /** The command could not do its work: a bad setting, a dependency down, a problem doctor found. */
  failed: 1,
  /** The command line itself is wrong: unknown command or option, missing or malformed argument. */
  usage: 2,
  /** `apply`: the configuration file does not parse, does not validate, or holds a literal secret. */
  invalidFile: 3,
} as const;

/** A failure whose message is the one line an operator needs, with the status to exit with. */
export class CommandError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number = EXIT.failed) {
    super(message);
    this.name = 'CommandError';
    this.exitCode = exitCode;
  }
}
