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
