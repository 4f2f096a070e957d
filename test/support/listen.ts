import type { AddressInfo, Server, Socket } from 'node:net';

/**
 * Listens on a free loopback port and keeps track of the open sockets, so that close() can destroy them (hanging ones
 * included). Resolves with the port.
 */
export async function listenOnLoopback(
  server: Server,
  sockets: Set<Socket>,
  onConnection: () => void = () => {},
): Promise<number> {
  server.on('connection', (socket: Socket) => {
    onConnection();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}
