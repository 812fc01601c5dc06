package resolvers

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/apperr"
	"storeadmin/internal/audit"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

func (r *mutationResolver) InviteMember(ctx context.Context, input graph.MemberInviteInput) (*graph.MemberInvitation, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	addr, err := email("email", input.Email, true)
	if err != nil {
		return nil, err
	}
	role, err := r.grantableRole(ctx, input.Role)
	if err != nil {
		return nil, err
	}
	name := ""
	if input.Name != nil {
		if name, err = text("name", *input.Name, 255, false); err != nil {
			return nil, err
		}
	}
	var out graph.MemberInvitation
	err = r.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		u, created, err := models.EnsureUser(ctx, tx, addr, name)
		if err != nil {
			return err
		}
		status := models.MemberActive
		if created {
			status = models.MemberInvited
		}
		if err := models.AddMember(ctx, tx, &models.StoreMember{StoreID: sid, UserID: u.ID, Role: string(role), Status: status}); err != nil {
			return err
		}
		m, err := models.GetMember(ctx, tx, sid, u.ID)
		out = graph.MemberInvitation{Added: !created, Invited: m}
		return err
	})
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "store_member", out.Invited.UserID)
	return &out, nil
}

func (r *mutationResolver) UpdateMember(ctx context.Context, userID int64, input graph.MemberUpdateInput) (bool, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return false, err
	}
	role, err := r.grantableRole(ctx, input.Role)
	if err != nil {
		return false, err
	}
	m, err := models.GetMember(ctx, r.DB, sid, userID)
	if err != nil {
		return false, err
	}
	if m.Role == string(auth.RoleOwner) {
		return false, apperr.Conflictf("the owner's role cannot be changed")
	}
	if err := models.SetMemberRole(ctx, r.DB, sid, userID, string(role)); err != nil {
		return false, err
	}
	audit.Touch(ctx, "store_member", userID)
	return true, nil
}

func (r *mutationResolver) RemoveMember(ctx context.Context, userID int64) (bool, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return false, err
	}
	m, err := models.GetMember(ctx, r.DB, sid, userID)
	if err != nil {
		return false, err
	}
	if m.Role == string(auth.RoleOwner) {
		return false, apperr.Conflictf("the owner cannot be removed")
	}
	if err := models.RemoveMember(ctx, r.DB, sid, userID); err != nil {
		return false, err
	}
	audit.Touch(ctx, "store_member", userID)
	return true, nil
}

func (r *queryResolver) Members(ctx context.Context, limit *int64, offset *int64) ([]models.StoreMember, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	p, err := models.NewPage(limit, offset)
	if err != nil {
		return nil, err
	}
	return models.ListMembers(ctx, r.DB, sid, p)
}

func (r *queryResolver) MembersCount(ctx context.Context) (int64, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return 0, err
	}
	return models.CountMembers(ctx, r.DB, sid)
}

// grantableRole checks a role the caller hands to someone else: a known key
// role, and no more than the caller's own.
func (r *Resolver) grantableRole(ctx context.Context, s string) (auth.Role, error) {
	role, err := auth.ParseKeyRole(s)
	if err != nil {
		return "", err
	}
	if p := auth.PrincipalFrom(ctx); p == nil || !p.Role.Includes(role) {
		return "", apperr.Forbiddenf("you cannot grant the %s role: it is above your own", role)
	}
	return role, nil
}
