import type { FieldChange, Step } from './plan.ts';

const MARK = { create: '+', update: '~', delete: '-' } as const;

/** The plan for people: one line per object, one indented line per field; secrets only as "set" or "changed". */
export function planLines(steps: readonly Step[]): string[] {
  const lines: string[] = [];
  for (const step of steps) {
    const id = step.id === undefined ? '' : ` (${step.id})`;
    const adopt = step.adopt === true ? ', taken over from the admin API' : '';
    lines.push(`${MARK[step.action]} ${step.kind} ${step.name}${id}: ${step.action}${adopt}`);
    for (const change of step.changes) {
      if (step.action === 'create' && change.to === null) continue;
      lines.push(`    ${changeText(step, change)}`);
    }
  }
  lines.push(summary(steps));
  return lines;
}

function changeText(step: Step, change: FieldChange): string {
  if (change.secret === true)
    return `${change.field}: ${change.to === null ? 'removed' : step.action === 'create' ? 'set' : 'changed'}`;
  if (step.action === 'create') return `${change.field}: ${JSON.stringify(change.to)}`;
  return `${change.field}: ${JSON.stringify(change.from)} -> ${JSON.stringify(change.to)}`;
}

export function summary(steps: readonly Step[]): string {
  if (steps.length === 0) return 'nothing to change: the database matches the file';
  const count = (action: Step['action']) => steps.filter((step) => step.action === action).length;
  return `${count('create')} to create, ${count('update')} to change, ${count('delete')} to delete`;
}
