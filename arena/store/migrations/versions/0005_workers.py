"""workers: results waiting for their runner, which attempt a match is, image archives

- ``worker_results``: a match played by an ``arena worker``, once per (match, attempt), until the
  league's runner stores it.
- ``matches.attempt``: which try of the match was stored (its records folder's name).
- ``image_archives``, ``image_chunks``: bot images as ``docker save`` wrote them, gzipped in
  pieces, for workers whose Docker engine lacks them.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 17:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'worker_results',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('league_id', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('table', sa.String(length=256), nullable=False),
        sa.Column('match', sa.String(length=256), nullable=False),
        sa.Column('attempt', sa.String(length=128), nullable=False),
        sa.Column('worker', sa.String(length=256), nullable=False),
        sa.Column('failure', sa.Text(), nullable=False),
        sa.Column('result', sa.JSON(), nullable=False),
        sa.Column('records', sa.LargeBinary(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['league_id'], ['leagues.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('match', 'attempt', name='uq_result_attempt'),
    )
    op.create_index('ix_worker_results_league', 'worker_results', ['league_id', 'id'])
    with op.batch_alter_table('matches') as batch:
        batch.add_column(sa.Column('attempt', sa.String(length=128), nullable=False, server_default=''))
    op.create_table(
        'image_archives',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('image_id', sa.String(length=80), nullable=False),
        sa.Column('image', sa.String(length=256), nullable=False),
        sa.Column('size', sa.BigInteger(), nullable=False),
        sa.Column('chunks', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('image_id'),
    )
    op.create_table(
        'image_chunks',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('image_id', sa.String(length=80), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('image_id', 'seq', name='uq_image_chunk'),
    )
    op.create_index('ix_image_chunks_image_id', 'image_chunks', ['image_id'])


def downgrade() -> None:
    op.drop_index('ix_image_chunks_image_id', 'image_chunks')
    op.drop_table('image_chunks')
    op.drop_table('image_archives')
    with op.batch_alter_table('matches') as batch:
        batch.drop_column('attempt')
    op.drop_index('ix_worker_results_league', 'worker_results')
    op.drop_table('worker_results')
