"""indexes for the web server's leaderboards and bot pages

- ``ix_matches_league``: (league_id, id). The count and highest id of a league's matches say
  whether anything was stored since the leaderboard was last computed; this index makes that a
  short read instead of a walk over (league_id, round, table).
- ``ix_rating_history_bot``: (league_id, bot_id, seq). A bot's rating history, in order, without
  reading the whole league's history.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 12:00:00
"""

from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index('ix_matches_league', 'matches', ['league_id', 'id'])
    op.create_index('ix_rating_history_bot', 'rating_history', ['league_id', 'bot_id', 'seq'])


def downgrade() -> None:
    op.drop_index('ix_rating_history_bot', 'rating_history')
    op.drop_index('ix_matches_league', 'matches')
