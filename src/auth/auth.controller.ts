import { Body, Controller, HttpCode, Logger, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { ApiTags } from '@nestjs/swagger';
import { Access } from './access.decorator';
import { Auth, AuthContext } from './auth-context';
import { LoginDto, Token } from './dto/login.dto';
import { Permission } from './permission';
import { UsersService } from './users.service';
import { ApiEnvelope, ApiErrors, bodyErrors } from '../common/api-docs.decorators';
import { Empty } from '../common/api-schema';

@ApiTags('auth')
@Controller()
export class AuthController {
  private readonly logger = new Logger('Auth');

  constructor(private readonly users: UsersService) {}

  @ApiEnvelope('Log in: a bearer token for a username or email and password', Token)
  @ApiErrors(...bodyErrors(LoginDto), Codes.InvalidCredentials, Codes.LoginThrottled)
  @Post('login')
  @HttpCode(200)
  @Access(Permission.Public)
  async login(@Body() dto: LoginDto, @Req() req: Request): Promise<Token> {
    try {
      // the address counts failures per client (the login policy of login-throttle.ts)
      return await this.users.login(dto.usernameOrEmail, dto.password, req.ip);
    } catch (e) {
      // Failed and throttled logins are logged for the operator (who tried, from where); never the password.
      if (e instanceof ApiError && e.code === Codes.InvalidCredentials) {
        this.logger.warn({ event: 'login.failed', username: dto.usernameOrEmail, address: req.ip }, 'failed login');
      } else if (e instanceof ApiError && e.code === Codes.LoginThrottled) {
        this.logger.warn({ event: 'login.throttled', username: dto.usernameOrEmail, address: req.ip }, 'login refused: too many failures');
      }
      throw e;
    }
  }

  @ApiEnvelope('Log out: revoke the token of this request', Empty)
  @Post('logout')
  @HttpCode(200)
  @Access(Permission.Authenticated)
  async logout(@Auth() auth: AuthContext): Promise<Empty> {
    await this.users.logout(auth.tokenId);
    return {};
  }
}
