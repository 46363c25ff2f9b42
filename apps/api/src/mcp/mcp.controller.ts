import { Controller, Delete, Get, HttpCode, Logger, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Response } from 'express';
import { ReadScope } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import { OperatorSlots } from '../auth/operator-slots';
import { ApiEnv } from '../config/api-env';
import { CorpusTools } from '@corpus-chat/corpus-queries';
import { createCorpusMcpServer } from './corpus-mcp-server';

/** The JSON-RPC answer to GET and DELETE: a stateless server has no stream to open and no session to end. */
const NOT_ALLOWED = {
  jsonrpc: '2.0',
  error: {
    code: -32000,
    message: 'Method not allowed: this MCP server is stateless; send JSON-RPC requests with POST /mcp.',
  },
  id: null,
};

/** The answer to a JSON array: MCP 2025-06-18 removed JSON-RPC batching, and a batch would run many tool calls as one request. */
const NO_BATCHES = {
  jsonrpc: '2.0',
  error: {
    code: -32600,
    message: 'JSON-RPC batches are not accepted (MCP 2025-06-18 removed them): send one request per POST.',
  },
  id: null,
};

/** MCP requests one operator may have running at once (a tool call holds a pooled connection). */
const MCP_REQUESTS_PER_OPERATOR = 4;

/**
 * `/mcp`: the corpus tools over stateless MCP Streamable HTTP, authenticated as `@ReadScope()`,
 * rate-limited per operator (batches refused), a few running at once.
 */
@ApiTags('mcp')
@Controller('mcp')
export class McpController {
  private readonly logger = new Logger(McpController.name);

  private readonly slots: OperatorSlots;

  constructor(
    private readonly tools: CorpusTools,
    env: ApiEnv,
  ) {
    this.slots = new OperatorSlots(
      'MCP requests',
      MCP_REQUESTS_PER_OPERATOR,
      Math.max(1, Math.floor(env.DB_POOL_SIZE / 2)),
    );
  }

  @Post()
  @ReadScope()
  @ApiOperation({ summary: 'MCP Streamable HTTP endpoint (JSON-RPC over POST; tools/list, tools/call)' })
  async handle(@Req() req: AuthenticatedRequest, @Res() res: Response): Promise<void> {
    if (Array.isArray(req.body)) {
      res.status(400).json(NO_BATCHES);
      return;
    }
    res.on('close', this.slots.take(req.operator!.id));
    const server = createCorpusMcpServer(this.tools);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
    this.logger.debug({
      msg: 'MCP request',
      operatorId: req.operator?.id,
      method: (req.body as { method?: unknown } | undefined)?.method,
    });
  }

  @Get()
  @ReadScope()
  @HttpCode(405)
  @ApiOperation({ summary: 'Not allowed: the server is stateless (no server-sent event stream)' })
  openStream(@Res({ passthrough: true }) res: Response): typeof NOT_ALLOWED {
    res.setHeader('Allow', 'POST');
    return NOT_ALLOWED;
  }

  @Delete()
  @ReadScope()
  @HttpCode(405)
  @ApiOperation({ summary: 'Not allowed: the server is stateless (no session to end)' })
  endSession(@Res({ passthrough: true }) res: Response): typeof NOT_ALLOWED {
    res.setHeader('Allow', 'POST');
    return NOT_ALLOWED;
  }
}
