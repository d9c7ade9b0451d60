import { CallHandler, ExecutionContext, Injectable, NestInterceptor, StreamableFile } from '@nestjs/common';
import { Observable, map } from 'rxjs';

/** Marks a handler whose result is sent as-is (file downloads, OpenAPI, health). */
export const RAW_RESPONSE = 'signet:raw-response';

/** Wraps every JSON result in the success envelope `{ payload, status: "success" }`. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const raw = Reflect.getMetadata(RAW_RESPONSE, context.getHandler()) === true;
    return next.handle().pipe(
      map((result: unknown) => {
        if (raw || result instanceof StreamableFile) return result;
        return result === undefined ? { status: 'success' } : { payload: result, status: 'success' };
      }),
    );
  }
}
