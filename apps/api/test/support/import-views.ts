import type { Socket } from 'socket.io-client';
import { IMPORT_SOCKET_EVENT, type ImportJobStatus, type ImportJobView } from '@corpus-chat/contracts';
import { eventually } from '@corpus-chat/persistence/testing';

/** The import views an operator's socket receives, in arrival order, and waits on them. */
export class ImportViews {
  readonly seen: ImportJobView[] = [];

  /** Collects what `socket` receives from now on. */
  listen(socket: Socket): void {
    socket.on(IMPORT_SOCKET_EVENT, (view: ImportJobView) => this.seen.push(view));
  }

  /** The socket's view of import `id` once it reached `status`; fails after `ms`. */
  async reached(id: string, status: ImportJobStatus, ms = 60_000): Promise<ImportJobView> {
    return (await eventually(
      () => this.seen.find((v) => v.id === id && v.status === status),
      ms,
      `import ${id} ${status} on the socket`,
    ))!;
  }
}
