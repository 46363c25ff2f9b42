// Dev-server proxy: the web app and the API share one origin in development as in production, so
// the session cookie and the Socket.IO handshake work without CORS. API_PORT defaults to 3000.
const target = `http://127.0.0.1:${process.env.API_PORT ?? '3000'}`;

/** A connection the other side dropped: a browser tab closed or reloaded mid-WebSocket, the API restarting. */
const isDroppedConnection = (err) => ['ECONNRESET', 'EPIPE', 'ECONNABORTED'].includes(err?.code);

/**
 * Vite logs every error of a proxied WebSocket with its stack trace, in red, including a browser
 * closing the tab (ECONNRESET), which happens all day and is not a fault. `configure` runs before
 * Vite registers its listeners, so wrap `proxy.on` to let those listeners see every other error.
 */
function quietOnDroppedConnections(proxy) {
  const on = proxy.on.bind(proxy);
  proxy.on = (event, listener) => {
    if (event === 'error') {
      // (err, req, res): `res` is the client's socket for a WebSocket; close it quietly.
      return on(event, (err, req, res) =>
        isDroppedConnection(err) ? res?.destroy?.() : listener(err, req, res),
      );
    }
    if (event === 'proxyReqWs') {
      return on(event, (proxyReq, req, socket, ...rest) => {
        const socketOn = socket.on.bind(socket);
        socket.on = (name, handler) =>
          socketOn(name, name === 'error' ? (err) => isDroppedConnection(err) || handler(err) : handler);
        try {
          listener(proxyReq, req, socket, ...rest);
        } finally {
          socket.on = socketOn;
        }
      });
    }
    return on(event, listener);
  };
}

/**
 * `xfwd` appends the browser's address to any X-Forwarded-For the browser sent itself, and the API
 * (TRUST_PROXY=loopback under `npm start`) trusts loopback hops, so a page on this machine could
 * name any address for the sign-in slow-down. Only the peer the dev server saw is forwarded.
 */
function forwardThePeerOnly(proxy) {
  const peerOnly = (proxyReq, req) => proxyReq.setHeader('x-forwarded-for', req.socket.remoteAddress ?? '');
  proxy.on('proxyReq', peerOnly);
  proxy.on('proxyReqWs', peerOnly);
}

// `xfwd` adds X-Forwarded-For, so the API sees each browser's address rather than the dev
// server's for its sign-in slow-down.
export default {
  '/api': { target, changeOrigin: false, secure: false, xfwd: true, configure: forwardThePeerOnly },
  '/socket.io': {
    target,
    ws: true,
    changeOrigin: false,
    secure: false,
    xfwd: true,
    configure: (proxy) => {
      quietOnDroppedConnections(proxy);
      forwardThePeerOnly(proxy);
    },
  },
};
