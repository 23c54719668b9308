// Test harness: a loopback TCP proxy that, like Cloudflare, cuts any connection on which no byte moved for `idleMs`.
import type { Socket, TCPSocketListener } from "bun";

export interface IdleProxy {
  url: string;
  port: number;
  /** Connections closed for being silent too long. */
  cuts: number;
  stop(): void;
}

interface Pair {
  upstream: Socket<Pair> | null;
  client: Socket<Pair>;
  pending: Uint8Array[];
  lastByte: number;
  timer: ReturnType<typeof setInterval>;
}

export function startIdleProxy(targetPort: number, idleMs: number): IdleProxy {
  const state = { cuts: 0 };
  const close = (pair: Pair): void => {
    clearInterval(pair.timer);
    pair.client.end();
    pair.upstream?.end();
  };
  const listener: TCPSocketListener<Pair> = Bun.listen<Pair>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        const pair: Pair = { upstream: null, client, pending: [], lastByte: Date.now(), timer: setInterval(() => {}, 1 << 30) };
        clearInterval(pair.timer);
        pair.timer = setInterval(
          () => {
            if (Date.now() - pair.lastByte >= idleMs) {
              state.cuts += 1;
              close(pair);
            }
          },
          Math.max(20, Math.floor(idleMs / 10)),
        );
        client.data = pair;
        void Bun.connect<Pair>({
          hostname: "127.0.0.1",
          port: targetPort,
          data: pair,
          socket: {
            open(upstream) {
              pair.upstream = upstream;
              for (const chunk of pair.pending.splice(0)) upstream.write(chunk);
            },
            data(_upstream, chunk) {
              pair.lastByte = Date.now();
              pair.client.write(chunk);
            },
            close() {
              close(pair);
            },
            error() {
              close(pair);
            },
          },
        }).catch(() => close(pair));
      },
      data(client, chunk) {
        const pair = client.data;
        pair.lastByte = Date.now();
        if (pair.upstream) pair.upstream.write(chunk);
        else pair.pending.push(new Uint8Array(chunk));
      },
      close(client) {
        close(client.data);
      },
      error(client) {
        close(client.data);
      },
    },
  });
  return {
    url: `http://127.0.0.1:${listener.port}`,
    port: listener.port,
    get cuts() {
      return state.cuts;
    },
    stop() {
      listener.stop(true);
    },
  };
}
