import type http from 'node:http';
import net from 'node:net';

/**
 * The server's drain (a rolling restart's SIGTERM, after SVC_SHUTDOWN_DELAY_MS of failing
 * readiness): it stops accepting connections at once (a balancer retries a refused connection
 * elsewhere; one the kernel had accepted but Node had not yet taken is reset, hence the delay
 * first), answers every request still to come on an open connection, each with
 * `Connection: close` so the client stops reusing it, and lets requests in flight finish. A
 * connection idle since before the drain is left to the server's own keep-alive timeout, which
 * clients know from the `Keep-Alive: timeout=…` header and so retire their end first; those still
 * idle after that timeout (plus Node's buffer), and those opened but never used as long (a
 * balancer's spare connections), are closed then. Any still busy when the grace runs out are cut.
 *
 * Closing idle connections any sooner (http.Server's own close does it at once; we did it after
 * 1 s until stop 38) races a client sending a request on one at that moment: the request was sent,
 * the socket is reset, and the client cannot know whether to retry.
 */
export function drainable(server: http.Server): (graceMs: number) => Promise<void> {
  const unanswered = new Set<http.ServerResponse>();
  // Connections that have not carried a request yet: Node counts them busy, not idle.
  const unused = new Set<net.Socket>();
  let draining = false;
  server.on('connection', (socket: net.Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    unused.delete(req.socket);
    if (draining) res.setHeader('connection', 'close');
    unanswered.add(res);
    res.once('close', () => unanswered.delete(res));
  });
  return (graceMs) =>
    new Promise((resolve) => {
      draining = true;
      for (const res of unanswered) if (!res.headersSent) res.setHeader('connection', 'close');
      let sweep: NodeJS.Timeout | undefined;
      const closeIdle = () => {
        server.closeIdleConnections();
        for (const socket of unused) if (socket.bytesRead === 0) socket.destroy();
      };
      const linger = setTimeout(
        () => {
          closeIdle();
          sweep = setInterval(closeIdle, 50);
        },
        Math.min(idleLifetimeMs(server), graceMs),
      );
      const force = setTimeout(() => server.closeAllConnections(), graceMs);
      // net.Server's close: stops listening and calls back once every connection has ended.
      net.Server.prototype.close.call(server, () => {
        clearTimeout(linger);
        clearInterval(sweep);
        clearTimeout(force);
        resolve();
      });
    });
}

/** How long the server keeps an idle keep-alive connection open in normal operation. */
const idleLifetimeMs = (server: http.Server & { keepAliveTimeoutBuffer?: number }) =>
  server.keepAliveTimeout + (server.keepAliveTimeoutBuffer ?? 0);
