import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessGuard } from './access.guard';
import { AccessService } from './access.service';
import { AuthController } from './auth.controller';
import { TokenEntity } from './token.entity';
import { UserEntity } from './user.entity';
import { UsersService } from './users.service';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, TokenEntity])],
  controllers: [AuthController],
  providers: [AccessService, UsersService, { provide: APP_GUARD, useClass: AccessGuard }],
  exports: [AccessService, UsersService],
})
export class AuthModule {}
