import { SetMetadata } from '@nestjs/common';
import { RAW_RESPONSE } from './envelope.interceptor';

/** The handler's result is not wrapped in the envelope. */
export const RawResponse = () => SetMetadata(RAW_RESPONSE, true);
