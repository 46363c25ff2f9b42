/** The instant a local calendar day (`2026-12-01`, as a date input gives it) starts, `days` later. */
export function localDayStart(day: string, days = 0): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d! + days).toISOString();
}
