import { HttpClient } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type {
  ChatAttachmentView,
  ChatDetailView,
  ChatSummaryView,
  CreateChatDto,
  PostMessageDto,
  PostMessageQueryDto,
  PostMessageResponse,
  RunningTurnView,
  TurnFeedbackDto,
  TurnFeedbackView,
  UpdateChatDto,
} from '@corpus-chat/contracts';

/** `/api/chats`: the signed-in operator's threads (the API scopes every call by owner). */
@Injectable({ providedIn: 'root' })
export class ChatApi {
  private readonly http = inject(HttpClient);

  list(archived: boolean): Promise<ChatSummaryView[]> {
    return firstValueFrom(
      this.http.get<ChatSummaryView[]>('/api/chats', { params: { archived: String(archived) } }),
    );
  }

  get(chatId: string): Promise<ChatDetailView> {
    return firstValueFrom(this.http.get<ChatDetailView>(`/api/chats/${encodeURIComponent(chatId)}`));
  }

  create(body: CreateChatDto = {}): Promise<ChatSummaryView> {
    return firstValueFrom(this.http.post<ChatSummaryView>('/api/chats', body));
  }

  update(chatId: string, body: UpdateChatDto): Promise<ChatSummaryView> {
    return firstValueFrom(this.http.patch<ChatSummaryView>(`/api/chats/${encodeURIComponent(chatId)}`, body));
  }

  remove(chatId: string): Promise<void> {
    return firstValueFrom(this.http.delete<void>(`/api/chats/${encodeURIComponent(chatId)}`));
  }

  /** `202`: the message is stored and its turn queued. `409` when a turn already runs in the thread. */
  postMessage(
    chatId: string,
    body: PostMessageDto,
    query: PostMessageQueryDto = {},
  ): Promise<PostMessageResponse> {
    return firstValueFrom(
      this.http.post<PostMessageResponse>(`/api/chats/${encodeURIComponent(chatId)}/messages`, body, {
        params: query.ifBusy ? { ifBusy: query.ifBusy } : {},
      }),
    );
  }

  /** Marks the thread seen: its answers so far are no longer unread, on all the operator's pages. */
  markSeen(chatId: string): Promise<void> {
    return firstValueFrom(this.http.post<void>(`/api/chats/${encodeURIComponent(chatId)}/seen`, {}));
  }

  /** The operator's queued and running turns across threads. */
  activeTurns(): Promise<RunningTurnView[]> {
    return firstValueFrom(this.http.get<RunningTurnView[]>('/api/chats/turns/active'));
  }

  cancelTurn(chatId: string, turnId: string): Promise<void> {
    return firstValueFrom(
      this.http.post<void>(
        `/api/chats/${encodeURIComponent(chatId)}/turns/${encodeURIComponent(turnId)}/cancel`,
        {},
      ),
    );
  }

  listAttachments(chatId: string): Promise<ChatAttachmentView[]> {
    return firstValueFrom(
      this.http.get<ChatAttachmentView[]>(`/api/chats/${encodeURIComponent(chatId)}/attachments`),
    );
  }

  /** `202`: the file is stored and its import queued; `413` over the size limit, `422` not a report file. */
  attach(chatId: string, file: File): Promise<ChatAttachmentView> {
    const body = new FormData();
    body.append('file', file, file.name);
    return firstValueFrom(
      this.http.post<ChatAttachmentView>(`/api/chats/${encodeURIComponent(chatId)}/attachments`, body),
    );
  }

  removeAttachment(chatId: string, attachmentId: string): Promise<void> {
    return firstValueFrom(
      this.http.delete<void>(
        `/api/chats/${encodeURIComponent(chatId)}/attachments/${encodeURIComponent(attachmentId)}`,
      ),
    );
  }

  /** Replaces the operator's rating (and comment) of a turn's answer. */
  putFeedback(chatId: string, turnId: string, body: TurnFeedbackDto): Promise<TurnFeedbackView> {
    return firstValueFrom(
      this.http.put<TurnFeedbackView>(
        `/api/chats/${encodeURIComponent(chatId)}/turns/${encodeURIComponent(turnId)}/feedback`,
        body,
      ),
    );
  }
}
