/** Columns padded to their widest cell, for people; `--json` is the form for scripts. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${[line(header), ...rows.map(line)].join('\n')}\n`);
}
