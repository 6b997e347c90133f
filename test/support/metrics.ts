/** The samples of `name` in a Prometheus exposition whose labels include every pair of `labels`. */
export function samples(text: string, name: string, labels: Record<string, string> = {}): number[] {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => wanted.every((pair) => line.includes(pair)))
    .map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));
}
