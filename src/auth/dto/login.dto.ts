import { Type } from '../../common/api-schema';
import type { Static } from '../../common/api-schema';
import { Codes } from '../../common/error-codes';
import { ValidateText } from '../../common/validation';

// Over-long credentials are wrong credentials: the answer does not say which part was wrong.
const CREDENTIALS = { code: Codes.InvalidCredentials, message: 'invalid username, email or password' };

export class LoginDto {
  @ValidateText('usernameOrEmail', { max: 320, ...CREDENTIALS, example: 'admin' })
  usernameOrEmail: string;

  @ValidateText('password', { max: 1024, ...CREDENTIALS })
  password: string;
}

/** The answer of login. */
export const Token = Type.Object({ token: Type.String({ description: 'bearer token for the Authorization header' }) }, { $id: 'Token' });
export type Token = Static<typeof Token>;
