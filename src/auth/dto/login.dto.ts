import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, MaxLength } from 'class-validator';
import { code } from '../../common/validation';
import { Codes } from '../../common/error-codes';

export class LoginDto {
  @ApiProperty({ example: 'admin' })
  @IsDefined(code(Codes.MissingField, 'usernameOrEmail is required'))
  @IsString(code(Codes.WrongType, 'usernameOrEmail must be a string'))
  @MaxLength(320, code(Codes.InvalidCredentials, 'invalid username, email or password'))
  usernameOrEmail: string;

  @ApiProperty()
  @IsDefined(code(Codes.MissingField, 'password is required'))
  @IsString(code(Codes.WrongType, 'password must be a string'))
  @MaxLength(1024, code(Codes.InvalidCredentials, 'invalid username, email or password'))
  password: string;
}
