import type { HttpRequest, HttpResponse, Transport } from "../../lib/http/types.ts";

/** A canned answer: status, optional headers and body text. */
export interface ScriptedAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** A recorded request, with its body decoded as text. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly stream: boolean;
}

/**
 * A Transport that answers from a script (a queue of answers or a function of the request) and
 * records every request, so REST client behaviour is tested without sockets.
 */
export class ScriptedTransport implements Transport {
  readonly requests: RecordedRequest[] = [];
  readonly #answer: (req: RecordedRequest) => ScriptedAnswer;
  closed = false;

  constructor(script: ScriptedAnswer[] | ((req: RecordedRequest) => ScriptedAnswer)) {
    if (Array.isArray(script)) {
      const queue = [...script];
      this.#answer = (req) => {
        const next = queue.shift();
        if (!next) throw new Error(`unexpected request ${req.method} ${req.url}`);
        return next;
      };
    } else {
      this.#answer = script;
    }
  }

  request(request: HttpRequest): Promise<HttpResponse> {
    // As HttpClient does right before the first byte: a refused request is never sent (nor recorded).
    try {
      request.beforeWrite?.();
    } catch (err) {
      return Promise.reject(err);
    }
    const body = typeof request.body === "string"
      ? request.body
      : request.body
      ? new TextDecoder().decode(request.body)
      : undefined;
    const recorded: RecordedRequest = {
      method: request.method,
      url: request.url,
      headers: { ...request.headers },
      body,
      stream: request.stream ?? false,
    };
    this.requests.push(recorded);
    const answer = this.#answer(recorded);
    return Promise.resolve(responseOf(answer));
  }

  close(): void {
    this.closed = true;
  }
}

/** Builds an HttpResponse from a canned answer. */
export function responseOf(answer: ScriptedAnswer): HttpResponse {
  const bytes = new TextEncoder().encode(answer.body ?? "");
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.length) controller.enqueue(bytes);
      controller.close();
    },
  });
  return {
    status: answer.status,
    statusText: "",
    headers: new Headers(answer.headers ?? {}),
    body,
    bytes: async () => new Uint8Array(await new Response(body).arrayBuffer()),
    text: () => new Response(body).text(),
    cancel: () => body.cancel(),
  };
}

/** A JSON answer. */
export function json(status: number, value: unknown, headers: Record<string, string> = {}): ScriptedAnswer {
  return { status, body: JSON.stringify(value), headers: { "content-type": "application/json", ...headers } };
}

/** A Status answer as the API server sends with errors. */
export function statusAnswer(
  code: number,
  reason: string,
  message: string = reason,
  headers: Record<string, string> = {},
): ScriptedAnswer {
  return json(code, { kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message }, headers);
}
