"""teams: bot names held by a group of accounts

- ``teams``: a team's name (the accounts' rule) and ``name_key``, its lower case, unique: two teams
  never differ by case only.
- ``team_members``: an account in a team, with its role (owner or member).
- ``bots.team_id``: the team whose bot name it is (None: its owner's own);
  ``submissions.team_id``: the team a submission is for.

Revision ID: 0007b
Revises: 0006
Create Date: 2026-12-07 15:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0007b'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'teams',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=64), nullable=False),
        sa.Column('name_key', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name_key'),
    )
    op.create_table(
        'team_members',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('team_id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('role', sa.String(length=16), nullable=False),
        sa.Column('added_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['team_id'], ['teams.id']),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('team_id', 'user_id', name='uq_team_member'),
    )
    op.create_index('ix_team_members_team_id', 'team_members', ['team_id'])
    op.create_index('ix_team_members_user_id', 'team_members', ['user_id'])
    with op.batch_alter_table('bots') as batch_op:
        batch_op.add_column(sa.Column('team_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_bots_team', 'teams', ['team_id'], ['id'])
        batch_op.create_index('ix_bots_team_id', ['team_id'])
    with op.batch_alter_table('submissions') as batch_op:
        batch_op.add_column(sa.Column('team_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_submissions_team', 'teams', ['team_id'], ['id'])
        batch_op.create_index('ix_submissions_team_id', ['team_id'])


def downgrade() -> None:
    with op.batch_alter_table('submissions') as batch_op:
        batch_op.drop_index('ix_submissions_team_id')
        batch_op.drop_constraint('fk_submissions_team', type_='foreignkey')
        batch_op.drop_column('team_id')
    with op.batch_alter_table('bots') as batch_op:
        batch_op.drop_index('ix_bots_team_id')
        batch_op.drop_constraint('fk_bots_team', type_='foreignkey')
        batch_op.drop_column('team_id')
    op.drop_index('ix_team_members_user_id', 'team_members')
    op.drop_index('ix_team_members_team_id', 'team_members')
    op.drop_table('team_members')
    op.drop_table('teams')
