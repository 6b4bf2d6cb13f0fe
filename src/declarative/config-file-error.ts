/** A configuration file that cannot be applied: each problem is one line `file:line:column: field: what`. */
export class ConfigFileError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigFileError';
    this.problems = problems;
  }
}
