import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Patch,
  Post,
  Query,
  StreamableFile,
} from '@nestjs/common';
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
  type RunningTurnView,
  UpdateChatDto,
} from '@corpus-chat/contracts';
import { type AuthenticatedOperator, CurrentOperator } from '../auth/current-operator';
import { UuidParam } from '../errors/id-params';
import { ApiQueryFrom } from '../openapi-schemas';
import { ChatGateway } from './chat.gateway';
import { ChatService } from './chat.service';
import { chatMarkdown } from './chat-markdown';
import { ReadScope } from '../auth/auth.decorators';
import { TurnActivityService } from './turn-activity.service';

/** `/api/chats`: the signed-in operator's threads, messages and turns. */
@ApiTags('chats')
@Controller('chats')
export class ChatController {
  constructor(
    private readonly chats: ChatService,
    private readonly gateway: ChatGateway,
    private readonly activity: TurnActivityService,
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

  @Get('turns/active')
  @ReadScope()
  @ApiOperation({ summary: 'My queued and running turns across threads, with estimated starts' })
  activeTurns(@CurrentOperator() op: AuthenticatedOperator): Promise<RunningTurnView[]> {
    return this.activity.activeTurns(op.id);
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
    void this.gateway.notifyThreadUpdated(op.id, id);
    return view;
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a thread (stops its active turn first)' })
  async remove(@CurrentOperator() op: AuthenticatedOperator, @UuidParam('id') id: string): Promise<void> {
    await this.chats.deleteChat(op.id, id);
    void this.gateway.notifyThreadUpdated(op.id, id);
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
    void this.gateway.notifyThreadUpdated(op.id, id); // title, message count and active turn changed
    return posted;
  }

  @Post(':id/seen')
  @HttpCode(204)
  @ApiOperation({ summary: 'Mark the thread seen: its answers so far are no longer unread (all my pages)' })
  async markSeen(@CurrentOperator() op: AuthenticatedOperator, @UuidParam('id') id: string): Promise<void> {
    if (!(await this.activity.markSeen(op.id, id))) throw new NotFoundException('Chat not found.');
    await this.gateway.notifyThreadUpdated(op.id, id);
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
