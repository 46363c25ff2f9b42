/**
 * What to tell the operator when a server could not listen on `port`, the value of the setting
 * `variable` (`API_PORT`, `WORKER_HEALTH_PORT`): "port 3000 is already in use (API_PORT): stop the
 * other process or set API_PORT" for `EADDRINUSE`, a privileged-port hint for `EACCES`; null for
 * any other error (let it surface as it is).
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
