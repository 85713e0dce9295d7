"""moderation: disqualified bots, disabled accounts, the audit log

- ``bots.disqualified_at``, ``bots.disqualified_reason``: a bot an admin disqualified.
- ``users.disabled_at``: an account an admin disabled.
- ``audit_log``: every change made through the site, the API or the command line.

Revision ID: 0007f
Revises: 0007b
Create Date: 2026-12-07 15:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0007f'
down_revision = '0007b'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('bots') as batch:
        batch.add_column(sa.Column('disqualified_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('disqualified_reason', sa.Text(), server_default='', nullable=False))
    with op.batch_alter_table('users') as batch:
        batch.add_column(sa.Column('disabled_at', sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        'audit_log',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('actor_id', sa.Integer(), nullable=True),
        sa.Column('actor', sa.String(length=128), nullable=False),
        sa.Column('via', sa.String(length=8), nullable=False),
        sa.Column('address', sa.String(length=128), nullable=False),
        sa.Column('action', sa.String(length=64), nullable=False),
        sa.Column('method', sa.String(length=8), nullable=False),
        sa.Column('route', sa.String(length=256), nullable=False),
        sa.Column('target', sa.String(length=256), nullable=False),
        sa.Column('status', sa.Integer(), nullable=True),
        sa.Column('detail', sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_audit_log_at', 'audit_log', ['at'])
    op.create_index('ix_audit_actor', 'audit_log', ['actor_id', 'id'])
    op.create_index('ix_audit_action', 'audit_log', ['action', 'id'])


def downgrade() -> None:
    op.drop_table('audit_log')
    with op.batch_alter_table('users') as batch:
        batch.drop_column('disabled_at')
    with op.batch_alter_table('bots') as batch:
        batch.drop_column('disqualified_reason')
        batch.drop_column('disqualified_at')
