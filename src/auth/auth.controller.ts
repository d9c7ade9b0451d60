import { Body, Controller, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Access } from './access.decorator';
import { Auth, AuthContext } from './auth-context';
import { LoginDto } from './dto/login.dto';
import { Permission } from './permission';
import { UsersService } from './users.service';

@ApiTags('auth')
@Controller()
export class AuthController {
  constructor(private readonly users: UsersService) {}

  @Post('login')
  @HttpCode(200)
  @Access(Permission.Public)
  login(@Body() dto: LoginDto, @Ip() address: string): Promise<{ token: string }> {
    return this.users.login(dto.usernameOrEmail, dto.password, address);
  }

  @Post('logout')
  @HttpCode(200)
  @Access(Permission.Authenticated)
  async logout(@Auth() auth: AuthContext): Promise<Record<string, never>> {
    await this.users.logout(auth.tokenId);
    return {};
  }
}
