// Dev-server proxy: the web app and the API share one origin in development as in production, so
// the session cookie and the Socket.IO handshake work without CORS. API_PORT defaults to 3000.
const target = `http://127.0.0.1:${process.env.API_PORT ?? '3000'}`;

export default {
  '/api': { target, changeOrigin: false, secure: false },
  '/socket.io': { target, ws: true, changeOrigin: false, secure: false },
};
