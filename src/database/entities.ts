import { UserEntity } from '../auth/user.entity';
import { TokenEntity } from '../auth/token.entity';
import { ProjectEntity } from '../projects/project.entity';
import { ProjectShareEntity } from '../projects/project-share.entity';

/** Every TypeORM entity of the service. Modules add theirs here. */
export const ENTITIES = [UserEntity, TokenEntity, ProjectEntity, ProjectShareEntity];
