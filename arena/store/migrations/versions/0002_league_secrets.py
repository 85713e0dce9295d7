"""league secrets, 128-bit game seeds, deal labels

Deals now come from a per-league secret through keyed hashes (issue 12), so:

- ``leagues.secret``: every existing league gets a fresh one from ``os.urandom``; its
  rounds played from now on are dealt from it (its old ``seed`` stays in ``schedule``).
- ``games.seed``: 128-bit seeds do not fit an SQL INTEGER; it becomes the seed's decimal
  digits. ``games.deal``: the deal label; games stored earlier get their old deal number
  (index // players: each deal was played in the k rotations in a row).
- ``matches.seed`` goes: a match no longer has a seed of its own (its secrets derive from
  the league's secret, round and table). Earlier matches' seeds derive from the league's
  old ``seed``, which is kept, and each of their games keeps its own seed.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 21:00:00
"""

import secrets

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    connection = op.get_bind()
    with op.batch_alter_table('leagues') as batch_op:
        batch_op.add_column(sa.Column('secret', sa.Text(), nullable=True))
    leagues = sa.table('leagues', sa.column('id', sa.Integer()), sa.column('secret', sa.Text()))
    for (league_id,) in connection.execute(sa.select(leagues.c.id)).all():
        connection.execute(leagues.update().where(leagues.c.id == league_id)
                           .values(secret=secrets.token_hex(32)))
    with op.batch_alter_table('leagues') as batch_op:
        batch_op.alter_column('secret', existing_type=sa.Text(), nullable=False)

    with op.batch_alter_table('games') as batch_op:
        batch_op.add_column(sa.Column('deal', sa.String(length=64), nullable=True))
    op.execute('UPDATE games SET deal = CAST(games."index" / (SELECT leagues.players FROM matches JOIN leagues '
               'ON leagues.id = matches.league_id WHERE matches.id = games.match_id) AS VARCHAR(64))')
    with op.batch_alter_table('games') as batch_op:
        batch_op.alter_column('deal', existing_type=sa.String(length=64), nullable=False)
        batch_op.alter_column('seed', existing_type=sa.Integer(), type_=sa.String(length=40),
                              existing_nullable=False, postgresql_using='seed::varchar(40)')

    with op.batch_alter_table('matches') as batch_op:
        batch_op.drop_column('seed')


def downgrade() -> None:
    raise NotImplementedError("0002 cannot be undone: its games' 128-bit seeds do not fit 0001's INTEGER column")
