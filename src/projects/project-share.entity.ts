import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity('project_shares')
export class ProjectShareEntity {
  @PrimaryColumn({ name: 'project_id', type: 'bigint' })
  projectId: string;

  @PrimaryColumn({ name: 'user_id', type: 'bigint' })
  userId: string;

  @Column({ name: 'can_read', type: 'boolean' })
  canRead: boolean;

  @Column({ name: 'can_write', type: 'boolean' })
  canWrite: boolean;

  @Column({ name: 'can_execute', type: 'boolean' })
  canExecute: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
