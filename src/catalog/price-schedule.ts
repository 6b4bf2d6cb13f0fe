import type { ModelInfo } from '@pydantic/genai-prices';

const DAY_MS = 86_400_000;
/** genai-prices' time-of-day format: `HH:MM:SS[.fff](Z|±HH:MM)`, read as UTC. */
const TIME_OF_DAY = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/;

function timeOfDayMs(value: string): number | undefined {
  const match = TIME_OF_DAY.exec(value);
  if (match === null) return undefined;
  const [, hours, minutes, seconds, fraction = '', , sign, offsetHours = '0', offsetMinutes = '0'] = match;
  const localMs =
    ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds) + Number(`0.${fraction}`)) * 1000;
  const offsetMs = (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000 * (sign === '-' ? -1 : 1);
  return (((localMs - offsetMs) % DAY_MS) + DAY_MS) % DAY_MS;
}

function nextOccurrenceMs(msOfDay: number, nowMs: number): number {
  const candidate = Math.floor(nowMs / DAY_MS) * DAY_MS + msOfDay;
  return candidate > nowMs ? candidate : candidate + DAY_MS;
}

/**
 * When the price in force for a model may next change: the next start date or time-of-day
 * boundary of its conditional prices after `nowMs`, or Infinity for a fixed price. A memoised
 * catalog entry is valid until then, so a peak/off-peak price (DeepSeek) or a scheduled price
 * change is picked up without looking the model up on every call.
 */
export function nextPriceChangeMs(model: ModelInfo, nowMs: number): number {
  if (!Array.isArray(model.prices)) return Number.POSITIVE_INFINITY;
  let next = Number.POSITIVE_INFINITY;
  for (const { constraint } of model.prices) {
    if (constraint === undefined) continue;
    if (constraint.type === 'start_date') {
      const startMs = Date.parse(constraint.start_date);
      if (startMs > nowMs && startMs < next) next = startMs;
      continue;
    }
    for (const boundary of [constraint.start_time, constraint.end_time]) {
      const msOfDay = timeOfDayMs(boundary);
      if (msOfDay !== undefined) next = Math.min(next, nextOccurrenceMs(msOfDay, nowMs));
    }
  }
  return next;
}
