import { loadChatSocketEnv } from './chat-socket.env';

describe('ChatSocketEnv', () => {
  it('defaults to 20 events per second and 20 sockets per operator, and reads both as numbers', () => {
    expect({ ...loadChatSocketEnv({}) }).toEqual({
      SOCKET_EVENTS_PER_SECOND: 20,
      MAX_SOCKETS_PER_OPERATOR: 20,
    });
    expect(loadChatSocketEnv({ SOCKET_EVENTS_PER_SECOND: '5', MAX_SOCKETS_PER_OPERATOR: '3' })).toMatchObject(
      {
        SOCKET_EVENTS_PER_SECOND: 5,
        MAX_SOCKETS_PER_OPERATOR: 3,
      },
    );
  });

  it.each([
    ['SOCKET_EVENTS_PER_SECOND', '0'],
    ['SOCKET_EVENTS_PER_SECOND', 'fast'],
    ['MAX_SOCKETS_PER_OPERATOR', '1.5'],
    ['MAX_SOCKETS_PER_OPERATOR', '-1'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadChatSocketEnv({ [name]: value })).toThrow(name);
  });
});
