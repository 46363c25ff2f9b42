/**
 * What to tell the operator when a server cannot listen on the port of setting `variable`
 * (`EADDRINUSE`, `EACCES`); null for other errors.
 */
export function listenErrorMessage(e: unknown, port: number, variable: string): string | null {
  const code = (e as { code?: unknown } | null | undefined)?.code;
  if (code === 'EADDRINUSE')
    return `port ${port} is already in use (${variable}): stop the other process or set ${variable}`;
  if (code === 'EACCES') {
    return `port ${port} may not be opened by this user (${variable}): use a port above 1023 or set ${variable}`;
  }
  return null;
}
