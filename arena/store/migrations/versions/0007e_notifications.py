"""notifications: inboxes, Atom feeds, webhooks and their deliveries, and what news is judged by

- ``notifications``: an account's inbox (read or not).
- ``notification_feeds``: an account's Atom feed token (its SHA-256).
- ``webhooks``, ``webhook_deliveries``: URLs an account registered, and each notification on its
  way to one (retried until delivered or out of attempts; a restarted server goes on).
- ``bot_health``: a bot's last games in a league, failed or not, and whether its owner was told.
- ``rank_marks``: a bot's rank in a league as its owner was last told.

Revision ID: 0007e
Revises: 0007f
Create Date: 2026-12-07 15:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0007e'
down_revision = '0007f'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'notifications',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('event', sa.String(length=40), nullable=False),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('url', sa.String(length=512), nullable=True),
        sa.Column('data', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('read_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_notifications_user', 'notifications', ['user_id', 'id'])
    op.create_table(
        'notification_feeds',
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('user_id'),
        sa.UniqueConstraint('digest'),
    )
    op.create_table(
        'webhooks',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('url', sa.String(length=2048), nullable=False),
        sa.Column('secret', sa.String(length=128), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_webhooks_user_id', 'webhooks', ['user_id'])
    op.create_table(
        'webhook_deliveries',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('webhook_id', sa.Integer(), nullable=False),
        sa.Column('delivery_id', sa.String(length=64), nullable=False),
        sa.Column('event', sa.String(length=40), nullable=False),
        sa.Column('body', sa.Text(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('last_status', sa.Integer(), nullable=True),
        sa.Column('last_error', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('delivered_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['webhook_id'], ['webhooks.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('delivery_id'),
    )
    op.create_index('ix_webhook_deliveries_due', 'webhook_deliveries', ['status', 'next_attempt_at'])
    op.create_index('ix_webhook_deliveries_webhook_id', 'webhook_deliveries', ['webhook_id'])
    op.create_table(
        'bot_health',
        sa.Column('league_id', sa.Integer(), nullable=False),
        sa.Column('bot_id', sa.Integer(), nullable=False),
        sa.Column('recent', sa.String(length=64), nullable=False),
        sa.Column('alerted', sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(['league_id'], ['leagues.id']),
        sa.ForeignKeyConstraint(['bot_id'], ['bots.id']),
        sa.PrimaryKeyConstraint('league_id', 'bot_id'),
    )
    op.create_table(
        'rank_marks',
        sa.Column('league_id', sa.Integer(), nullable=False),
        sa.Column('bot_id', sa.Integer(), nullable=False),
        sa.Column('rank', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['league_id'], ['leagues.id']),
        sa.ForeignKeyConstraint(['bot_id'], ['bots.id']),
        sa.PrimaryKeyConstraint('league_id', 'bot_id'),
    )


def downgrade() -> None:
    op.drop_table('rank_marks')
    op.drop_table('bot_health')
    op.drop_index('ix_webhook_deliveries_webhook_id', 'webhook_deliveries')
    op.drop_index('ix_webhook_deliveries_due', 'webhook_deliveries')
    op.drop_table('webhook_deliveries')
    op.drop_index('ix_webhooks_user_id', 'webhooks')
    op.drop_table('webhooks')
    op.drop_table('notification_feeds')
    op.drop_index('ix_notifications_user', 'notifications')
    op.drop_table('notifications')
