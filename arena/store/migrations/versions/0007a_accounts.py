"""accounts: invite codes, token hints, names unique whatever their case

- ``invites``: the codes an admin makes for signing up (only their SHA-256 kept), with a use
  count and an expiry; ``users.invite_id``: the code an account signed up with.
- ``api_tokens.hint``: a token's first characters, to tell an owner's tokens apart.
- ``users.name_folded``: the name in lower case, unique (``uq_users_name_folded``): names are
  unique whatever their case. A column rather than an index on ``lower(name)``, which SQLite's
  batch migrations (a later one altering ``users``) would drop. A store whose accounts already
  differ only by case (made by ``arena user add``) is refused with their names: an admin renames
  or removes one first, since nothing here can choose which is the impostor.

Revision ID: 0007a
Revises: 0006
Create Date: 2026-12-07 15:00:00
"""

import sqlalchemy as sa
from alembic import op

from arena.store import StoreError

revision = '0007a'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    clashes = op.get_bind().execute(sa.text(
        "SELECT lower(name) FROM users GROUP BY lower(name) HAVING count(*) > 1")).scalars().all()
    if clashes:
        raise StoreError("accounts whose names differ only by case: " + ", ".join(sorted(clashes)[:20])
                           + "; rename or remove all but one of each before upgrading")
    op.create_table(
        'invites',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('hint', sa.String(length=16), nullable=False),
        sa.Column('uses', sa.Integer(), nullable=False),
        sa.Column('used', sa.Integer(), nullable=False),
        sa.Column('created_by', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('digest'),
    )
    with op.batch_alter_table('users') as batch_op:
        batch_op.add_column(sa.Column('name_folded', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('invite_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_users_invite', 'invites', ['invite_id'], ['id'])
        batch_op.create_index('ix_users_invite_id', ['invite_id'])
    op.execute("UPDATE users SET name_folded = lower(name)")
    with op.batch_alter_table('users') as batch_op:
        batch_op.alter_column('name_folded', existing_type=sa.String(length=64), nullable=False)
        batch_op.create_unique_constraint('uq_users_name_folded', ['name_folded'])
    with op.batch_alter_table('api_tokens') as batch_op:
        batch_op.add_column(sa.Column('hint', sa.String(length=16), nullable=False, server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('api_tokens') as batch_op:
        batch_op.drop_column('hint')
    with op.batch_alter_table('users') as batch_op:
        batch_op.drop_constraint('uq_users_name_folded', type_='unique')
        batch_op.drop_column('name_folded')
        batch_op.drop_index('ix_users_invite_id')
        batch_op.drop_constraint('fk_users_invite', type_='foreignkey')
        batch_op.drop_column('invite_id')
    op.drop_table('invites')
