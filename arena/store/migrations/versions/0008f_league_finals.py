"""league finals: a league closed to submissions, and the finals ranked on fresh deals

- ``leagues.closed_at``: when the league was closed to new entrants (NULL: open).
- ``leagues.finals_of``: the league whose finals this one is (NULL: none), made when it closed.

Revision ID: 0008f
Revises: 0007c
Create Date: 2026-12-07 22:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0008f'
down_revision = '0007c'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('leagues') as batch:
        batch.add_column(sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('finals_of', sa.Integer(), nullable=True))
        batch.create_foreign_key('fk_leagues_finals_of', 'leagues', ['finals_of'], ['id'])
        batch.create_unique_constraint('uq_leagues_finals_of', ['finals_of'])


def downgrade() -> None:
    with op.batch_alter_table('leagues') as batch:
        batch.drop_constraint('uq_leagues_finals_of', type_='unique')
        batch.drop_constraint('fk_leagues_finals_of', type_='foreignkey')
        batch.drop_column('finals_of')
        batch.drop_column('closed_at')
