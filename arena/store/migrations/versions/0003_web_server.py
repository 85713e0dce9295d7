"""the web server: accounts, API tokens, browser sessions, submissions, live matches

- ``users``, ``api_tokens``, ``web_sessions``: authors and admins (``arena user add``).
- ``submissions``: bot folders uploaded over HTTP, and how far each got.
- ``live_matches``: matches being played, so running games can be found (and guarded).
- ``bots.owner_id``: the account that submitted a bot (None: registered on the command line);
  ``bots.retired_at``: a retired bot plays no new match.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 10:40:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'users',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=64), nullable=False),
        sa.Column('password_hash', sa.String(length=256), nullable=True),
        sa.Column('is_admin', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
    )
    op.create_table(
        'api_tokens',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('digest'),
    )
    op.create_index('ix_api_tokens_user_id', 'api_tokens', ['user_id'])
    op.create_table(
        'web_sessions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('csrf', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('digest'),
    )
    op.create_index('ix_web_sessions_user_id', 'web_sessions', ['user_id'])
    with op.batch_alter_table('bots') as batch_op:
        batch_op.add_column(sa.Column('owner_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('retired_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.create_foreign_key('fk_bots_owner', 'users', ['owner_id'], ['id'])
        batch_op.create_index('ix_bots_owner_id', ['owner_id'])
    op.create_table(
        'submissions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('leagues', sa.JSON(), nullable=False),
        sa.Column('retire_previous', sa.Boolean(), nullable=False),
        sa.Column('folder', sa.String(length=1024), nullable=False),
        sa.Column('bot_name', sa.String(length=64), nullable=False),
        sa.Column('bot_version', sa.String(length=128), nullable=False),
        sa.Column('bot_id', sa.Integer(), nullable=True),
        sa.Column('log', sa.Text(), nullable=False),
        sa.Column('report', sa.Text(), nullable=False),
        sa.Column('error', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.ForeignKeyConstraint(['bot_id'], ['bots.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_submissions_user_id', 'submissions', ['user_id'])
    op.create_table(
        'live_matches',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('league_id', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('table', sa.String(length=256), nullable=False),
        sa.Column('bots', sa.JSON(), nullable=False),
        sa.Column('record_dir', sa.String(length=1024), nullable=False),
        sa.Column('host', sa.String(length=256), nullable=False),
        sa.Column('pid', sa.Integer(), nullable=False),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['league_id'], ['leagues.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('league_id', 'round', 'table', name='uq_live_slot'),
    )


def downgrade() -> None:
    op.drop_table('live_matches')
    op.drop_index('ix_submissions_user_id', 'submissions')
    op.drop_table('submissions')
    with op.batch_alter_table('bots') as batch_op:
        batch_op.drop_index('ix_bots_owner_id')
        batch_op.drop_constraint('fk_bots_owner', type_='foreignkey')
        batch_op.drop_column('retired_at')
        batch_op.drop_column('owner_id')
    op.drop_index('ix_web_sessions_user_id', 'web_sessions')
    op.drop_table('web_sessions')
    op.drop_index('ix_api_tokens_user_id', 'api_tokens')
    op.drop_table('api_tokens')
    op.drop_table('users')
