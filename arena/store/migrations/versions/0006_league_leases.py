"""league leases: one runner per league at a time

- ``league_leases``: the runner playing a league now (its host, process and command), renewed
  while it runs; a second runner of the league is refused, and a stale lease (its process gone,
  or not renewed for a while) is taken over (``arena/league/lease.py``).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 10:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'league_leases',
        sa.Column('league_id', sa.Integer(), nullable=False),
        sa.Column('token', sa.String(length=64), nullable=False),
        sa.Column('host', sa.String(length=256), nullable=False),
        sa.Column('pid', sa.Integer(), nullable=False),
        sa.Column('command', sa.String(length=32), nullable=False),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('renewed_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['league_id'], ['leagues.id']),
        sa.PrimaryKeyConstraint('league_id'),
    )


def downgrade() -> None:
    op.drop_table('league_leases')
