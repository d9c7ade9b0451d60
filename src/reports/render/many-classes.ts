/**
 * Charts of an outcome with many classes, summarised: a confusion matrix, the probabilities of every class for the
 * samples of every class and a ROC curve per class grow with the square of the classes (a 100-class report was 24 MB,
 * mostly these, and took 2.9 s to draw), and beyond a score of classes no one reads them. Past MAX_CHART_CLASSES a
 * chart shows the MAX_CHART_CLASSES largest classes (by their samples) and gathers the rest as "other"; every value is
 * still in the plot's JSON (getPlot).
 */

/** Classes a chart shows one by one; the rest of a larger outcome are gathered as "other" (or left out, said so). */
export const MAX_CHART_CLASSES = 20;

/** The `max` largest of `classes` by `size` (ties by name), in their own order; all of them when they are not more. */
export function largestClasses(classes: readonly string[], size: (c: string) => number, max = MAX_CHART_CLASSES): Set<string> {
  if (classes.length <= max) return new Set(classes);
  const ranked = [...classes].sort((a, b) => size(b) - size(a) || (a < b ? -1 : a > b ? 1 : 0));
  return new Set(ranked.slice(0, max));
}

/** The label of the gathered classes. */
export function otherLabel(count: number): string {
  return `other (${count} classes)`;
}

/**
 * A confusion matrix of the largest classes, the others' rows and columns summed into one "other" row and column (the
 * whole matrix when it has at most MAX_CHART_CLASSES classes).
 */
export function summarisedMatrix(
  classes: readonly string[],
  counts: readonly (readonly number[])[],
): { labels: string[]; counts: number[][] } {
  const rowTotal = (t: number) => counts[t].reduce((a, b) => a + b, 0);
  const kept = largestClasses(classes, (c) => rowTotal(classes.indexOf(c)));
  if (kept.size === classes.length) return { labels: [...classes], counts: counts.map((r) => [...r]) };
  const order = classes.filter((c) => kept.has(c));
  const position = new Map(order.map((c, i) => [c, i]));
  const at = (k: number) => position.get(classes[k]) ?? order.length;
  const out = Array.from({ length: order.length + 1 }, () => new Array<number>(order.length + 1).fill(0));
  counts.forEach((row, t) => row.forEach((v, p) => (out[at(t)][at(p)] += v)));
  return { labels: [...order, otherLabel(classes.length - order.length)], counts: out };
}
