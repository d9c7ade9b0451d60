import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessGuard } from './access.guard';
import { AccessService } from './access.service';
import { AuthController } from './auth.controller';
import { UsersService } from './users.service';

@Global()
@Module({
  controllers: [AuthController],
  providers: [AccessService, UsersService, { provide: APP_GUARD, useClass: AccessGuard }],
  exports: [AccessService, UsersService],
})
export class AuthModule {}
