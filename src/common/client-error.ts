import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Node's own status for the request faults it names; any other fault of the request's syntax is 400. */
const STATUS: Record<string, [number, string]> = {
  HPE_INVALID_METHOD: [404, 'Not Found'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
};

/**
 * Answers the requests Node's HTTP parser refuses before Express sees them (an unknown method such as
 * `FOO`, a malformed request line or header, headers over the size limit) with a JSON body, as the
 * service's other HTTP-level answers: an unknown method is an undefined endpoint (404, as `PROPFIND`
 * gets from the router), the rest keep Node's status (400, 408, 431). Node's own answer has no body.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, text] = STATUS[err.code ?? ''] ?? [400, 'Bad Request'];
    const body = JSON.stringify({ statusCode: status, message: text });
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
