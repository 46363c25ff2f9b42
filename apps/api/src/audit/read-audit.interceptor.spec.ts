import type { AuthenticatedRequest } from '../auth/auth.guard';
import { readAuditEvent } from './read-audit.interceptor';

const operator = {
  id: 'op-1',
  username: 'alice',
  displayName: 'Alice',
  role: 'operator' as const,
  language: 'en' as const,
};
const req = (r: Partial<AuthenticatedRequest>) =>
  ({
    method: 'GET',
    path: '/api/findings',
    originalUrl: '/api/findings?limit=5',
    operator,
    ...r,
  }) as AuthenticatedRequest;

describe('readAuditEvent', () => {
  it('records a token read with its method, path and status, and nothing for the web client’s own reads', () => {
    expect(readAuditEvent(req({ apiTokenId: 't-1' }), 200)).toEqual({
      action: 'api_token.read',
      actor: { id: 'op-1', username: 'alice' },
      subjectType: 'operator',
      subjectId: 'op-1',
      after: { via: 'api_token', tokenId: 't-1', method: 'GET', path: '/api/findings?limit=5', status: 200 },
    });
    expect(readAuditEvent(req({}), 200)).toBeNull();
    expect(readAuditEvent(req({ operator: undefined }), 401)).toBeNull();
  });

  it('records MCP tool calls by token or session, not tools/list, with long arguments cut', () => {
    const mcp = (body: unknown, r: Partial<AuthenticatedRequest> = {}) =>
      readAuditEvent(req({ path: '/mcp', method: 'POST', body, ...r }), 200);
    expect(mcp({ method: 'tools/list' }, { apiTokenId: 't-1' })).toBeNull();
    const text = 'x'.repeat(600);
    expect(
      mcp({ method: 'tools/call', params: { name: 'search_findings', arguments: { text } } })?.after,
    ).toEqual({
      via: 'session',
      tool: 'search_findings',
      arguments: `${JSON.stringify({ text }).slice(0, 500)}…`,
      status: 200,
    });
  });
});
