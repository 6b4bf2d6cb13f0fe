import { dollars } from '../format.ts';

/** The budget left as a bar (a `meter`), with the figures in words beside it. */
export function SpendBar({ spent, budget, label }: { spent: number; budget: number | null; label: string }) {
  if (budget === null) return <span>{dollars(spent)} spent, no budget</span>;
  const left = Math.max(0, budget - spent);
  return (
    <span class="spend">
      <meter
        min={0}
        max={budget || 1}
        low={budget * 0.8}
        high={budget * 0.95}
        optimum={0}
        value={Math.min(spent, budget)}
        aria-label={`${label} budget used`}
      />
      <span>
        {dollars(left)} left of {dollars(budget)}
      </span>
    </span>
  );
}
