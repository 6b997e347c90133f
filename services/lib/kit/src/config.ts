// Configuration is read once at start; every problem is reported together and the process
// refuses to start, instead of failing on first use.

export class ConfigError extends Error {}

export class EnvReader {
  private readonly problems: string[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  str(name: string, fallback?: string): string {
    const raw = this.env[name];
    if (raw !== undefined) return raw;
    if (fallback !== undefined) return fallback;
    this.problems.push(`${name} is required`);
    return '';
  }

  int(name: string, fallback?: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') {
      if (fallback !== undefined) return fallback;
      this.problems.push(`${name} is required`);
      return 0;
    }
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) this.problems.push(`${name} must be a non-negative integer, got "${raw}"`);
    return n;
  }

  /** Throws one error listing every problem met so far. */
  done(): void {
    if (this.problems.length) throw new ConfigError(`Invalid configuration: ${this.problems.join('; ')}`);
  }
}
