import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CancelTurnResponse,
  type ChatDetailView,
  type ChatSummaryView,
  CreateChatDto,
  ListChatsQueryDto,
  PostMessageDto,
  PostMessageQueryDto,
  type PostMessageResponse,
  UpdateChatDto,
} from '@corpus-chat/contracts';
import { type AuthenticatedOperator, CurrentOperator } from '../auth/current-operator';
import { UuidParam } from '../errors/id-params';
import { ApiQueryFrom } from '../openapi-schemas';
import { ChatGateway } from './chat.gateway';
import { ChatService } from './chat.service';
import { chatMarkdown } from './chat-markdown';
import { ReadScope } from '../auth/auth.decorators';

/** `/api/chats`: the signed-in operator's threads, messages and turns. */
@ApiTags('chats')
@Controller('chats')
export class ChatController {
  constructor(
    private readonly chats: ChatService,
    private readonly gateway: ChatGateway,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a thread' })
  create(@CurrentOperator() op: AuthenticatedOperator, @Body() dto: CreateChatDto): Promise<ChatSummaryView> {
    return this.chats.createChat(op.id, dto);
  }

  @Get()
  @ReadScope()
  @ApiOperation({ summary: 'List threads (archived=true for the archive)' })
  @ApiQueryFrom(ListChatsQueryDto)
  list(
    @CurrentOperator() op: AuthenticatedOperator,
    @Query() query: ListChatsQueryDto,
  ): Promise<ChatSummaryView[]> {
    return this.chats.listChats(op.id, query.archived === 'true');
  }

  @Get(':id')
  @ReadScope()
  @ApiOperation({ summary: 'A thread with its messages and its active turn' })
  get(@CurrentOperator() op: AuthenticatedOperator, @UuidParam('id') id: string): Promise<ChatDetailView> {
    return this.chats.getChat(op.id, id);
  }

  @Get(':id/export.md')
  @ReadScope()
  @ApiOperation({
    summary:
      'A thread as Markdown: title, each message with its role and time, tool calls as one line; 404 unless yours (audited as chat.export)',
  })
  async exportMarkdown(
    @CurrentOperator() op: AuthenticatedOperator,
    @UuidParam('id') id: string,
  ): Promise<StreamableFile> {
    const chat = await this.chats.exportChat(op, id);
    return new StreamableFile(Buffer.from(chatMarkdown(chat), 'utf8'), {
      type: 'text/markdown; charset=utf-8',
      disposition: `attachment; filename="chat-${chat.id}.md"`,
    });
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Rename or (un)archive a thread' })
  async update(
    @CurrentOperator() op: AuthenticatedOperator,
    @UuidParam('id') id: string,
    @Body() dto: UpdateChatDto,
  ): Promise<ChatSummaryView> {
    const view = await this.chats.updateChat(op.id, id, dto);
    this.gateway.notifyThreadUpdated(id);
    return view;
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a thread (stops its active turn first)' })
  async remove(@CurrentOperator() op: AuthenticatedOperator, @UuidParam('id') id: string): Promise<void> {
    await this.chats.deleteChat(op.id, id);
    this.gateway.notifyThreadUpdated(id);
  }

  @Post(':id/messages')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Post a message: stores it and queues a turn (409 when busy unless ifBusy=interrupt)',
  })
  @ApiQueryFrom(PostMessageQueryDto)
  async post(
    @CurrentOperator() op: AuthenticatedOperator,
    @UuidParam('id') id: string,
    @Body() dto: PostMessageDto,
    @Query() query: PostMessageQueryDto,
  ): Promise<PostMessageResponse> {
    const posted = await this.chats.postMessage(op, id, dto, query);
    this.gateway.notifyThreadUpdated(id); // title, message count and active turn changed
    return posted;
  }

  @Post(':id/turns/:turnId/cancel')
  @HttpCode(202)
  @ApiOperation({ summary: 'Cancel a queued or running turn' })
  cancel(
    @CurrentOperator() op: AuthenticatedOperator,
    @UuidParam('id') id: string,
    @UuidParam('turnId') turnId: string,
  ): Promise<CancelTurnResponse> {
    return this.chats.cancelTurn(op.id, id, turnId);
  }
}
