"""scrimmages: unrated matches an author asks for

- ``scrimmages``: who asked, the game, the bots, its own secret (never a league's), its state;
- ``scrimmage_games``: their games, apart from ``games`` so that no rating, leaderboard or
  league slot ever reads them (``arena/scrimmage.py``).

Revision ID: 0007c
Revises: 0007e
Create Date: 2026-12-07 15:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0007c'
down_revision = '0007e'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'scrimmages',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('game', sa.String(length=32), nullable=False),
        sa.Column('players', sa.Integer(), nullable=False),
        sa.Column('settings', sa.JSON(), nullable=False),
        sa.Column('schedule', sa.JSON(), nullable=False),
        sa.Column('secret', sa.Text(), nullable=False),
        sa.Column('bots', sa.JSON(), nullable=False),
        sa.Column('games', sa.Integer(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('error', sa.Text(), nullable=False),
        sa.Column('record_dir', sa.String(length=1024), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_scrimmages_user', 'scrimmages', ['user_id', 'created_at'])
    op.create_table(
        'scrimmage_games',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('scrimmage_id', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('index', sa.Integer(), nullable=False),
        sa.Column('deal', sa.String(length=64), nullable=False),
        sa.Column('seats', sa.JSON(), nullable=False),
        sa.Column('match_bots', sa.JSON(), nullable=False),
        sa.Column('scores', sa.JSON(), nullable=False),
        sa.Column('ranks', sa.JSON(), nullable=False),
        sa.Column('failures', sa.JSON(), nullable=False),
        sa.Column('record_path', sa.String(length=1024), nullable=False),
        sa.ForeignKeyConstraint(['scrimmage_id'], ['scrimmages.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('scrimmage_id', 'number', name='uq_scrimmage_game'),
    )


def downgrade() -> None:
    op.drop_table('scrimmage_games')
    op.drop_index('ix_scrimmages_user', table_name='scrimmages')
    op.drop_table('scrimmages')
