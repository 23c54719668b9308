// A guarded GET for documents named by strangers (client metadata documents): no private targets, no redirects, a deadline and a size cap.
import { ipFamily } from "./ip-address.ts";
import { guardedLookup, isForbiddenAddress } from "./ssrf.ts";

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  /** Test-only: loopback targets allowed (HERMES_MCP_TEST_ALLOW_LOOPBACK_CIMD). */
  allowLoopback: boolean;
}

export interface FetchedDocument {
  status: number;
  cacheControl: string | null;
  contentType: string | null;
  body: string;
}

export class FetchRefused extends Error {
  override name = "FetchRefused";
}

export async function fetchDocument(url: URL, limits: FetchLimits): Promise<FetchedDocument> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // SSRF: an IP literal never goes through DNS, so it is checked here; names are checked by the lookup at connect time.
  if (ipFamily(host) !== 0 && isForbiddenAddress(host, limits.allowLoopback)) {
    throw new FetchRefused(`${url.host} is a private or loopback address`);
  }
  // Loaded on the first fetch, not at start-up, where a static import would run them (src/oauth/ip-address.ts says why).
  const transport = url.protocol === "https:" ? (await import("node:https")).default : (await import("node:http")).default;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, doc?: FetchedDocument): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (error) reject(error);
      else resolve(doc as FetchedDocument);
    };
    const request = transport.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: { Accept: "application/json", "User-Agent": "hermes-mcp (client metadata fetch)" },
        lookup: guardedLookup(limits.allowLoopback) as never,
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        // No redirects: a document must live at its own client_id URL (and a redirect could point inside the network).
        if (status >= 300 && status < 400) {
          response.resume();
          return finish(new FetchRefused(`the document answered with a redirect (${status}); redirects are not followed`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxBytes) {
            request.destroy();
            finish(new FetchRefused(`the document is larger than ${limits.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () =>
          finish(null, {
            status,
            cacheControl: (response.headers["cache-control"] as string | undefined) ?? null,
            contentType: (response.headers["content-type"] as string | undefined) ?? null,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", (error) => finish(error));
      },
    );
    const deadline = setTimeout(() => {
      request.destroy();
      finish(new FetchRefused(`no answer within ${limits.timeoutMs} ms`));
    }, limits.timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) => {
      finish(
        error.code === "EFORBIDDENADDRESS"
          ? new FetchRefused(error.message)
          : new FetchRefused(`could not fetch it (${error.code ?? error.message})`),
      );
    });
    request.end();
  });
}
