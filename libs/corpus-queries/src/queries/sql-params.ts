/** Collects positional parameters (`$1`, `$2`…) while a statement is assembled from fixed SQL fragments. */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a value and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** A copy to extend for a second statement sharing the same leading parameters. */
  clone(): SqlParams {
    const c = new SqlParams();
    c.values.push(...this.values);
    return c;
  }
}
