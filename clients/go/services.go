package canopy

import (
	"context"
	"net/http"
	"net/url"
)

func esc(s string) string { return url.PathEscape(s) }

// ProjectsService: /projects.
type ProjectsService struct{ c *Client }

// List returns one page of projects.
func (s *ProjectsService) List(ctx context.Context, params *ProjectListParams, opts ...RequestOption) (*List[Project], error) {
	q, err := params.values()
	if err != nil {
		return nil, err
	}
	var out List[Project]
	if err := s.c.doList(ctx, "/projects", q, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListAll iterates over every project matching params, page after page.
func (s *ProjectsService) ListAll(ctx context.Context, params *ProjectListParams, opts ...RequestOption) *Iter[Project] {
	q, err := params.values()
	if err != nil {
		return failedIter[Project](err)
	}
	return newIter(ctx, q, func(ctx context.Context, q url.Values) (*List[Project], error) {
		var out List[Project]
		err := s.c.doList(ctx, "/projects", q, &out, opts)
		return &out, err
	})
}

// Get returns one project.
func (s *ProjectsService) Get(ctx context.Context, id string, opts ...RequestOption) (*Project, error) {
	var out Project
	if err := s.c.do(ctx, http.MethodGet, "/projects/"+esc(id), nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Create creates a project (status active unless params say draft).
func (s *ProjectsService) Create(ctx context.Context, params *ProjectCreateParams, opts ...RequestOption) (*Project, error) {
	var out Project
	if err := s.c.do(ctx, http.MethodPost, "/projects", nil, params, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Update changes the fields set in params.
func (s *ProjectsService) Update(ctx context.Context, id string, params *ProjectUpdateParams, opts ...RequestOption) (*Project, error) {
	if params == nil {
		params = &ProjectUpdateParams{}
	}
	var out Project
	if err := s.c.do(ctx, http.MethodPut, "/projects/"+esc(id), nil, params, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Archive archives an active project.
func (s *ProjectsService) Archive(ctx context.Context, id string, opts ...RequestOption) (*Project, error) {
	var out Project
	if err := s.c.do(ctx, http.MethodPost, "/projects/"+esc(id)+"/archive", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Restore restores an archived project.
func (s *ProjectsService) Restore(ctx context.Context, id string, opts ...RequestOption) (*Project, error) {
	var out Project
	if err := s.c.do(ctx, http.MethodPost, "/projects/"+esc(id)+"/restore", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete deletes an archived project (an active one is refused).
func (s *ProjectsService) Delete(ctx context.Context, id string, opts ...RequestOption) error {
	return s.c.do(ctx, http.MethodDelete, "/projects/"+esc(id), nil, nil, nil, opts)
}

// AssetsService: /projects/{project_id}/assets.
type AssetsService struct{ c *Client }

func assetsPath(projectID string) string { return "/projects/" + esc(projectID) + "/assets" }

// List returns one page of a project's assets.
func (s *AssetsService) List(ctx context.Context, projectID string, params *AssetListParams, opts ...RequestOption) (*List[Asset], error) {
	var out List[Asset]
	if err := s.c.doList(ctx, assetsPath(projectID), params.values(), &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListAll iterates over every asset of a project matching params.
func (s *AssetsService) ListAll(ctx context.Context, projectID string, params *AssetListParams, opts ...RequestOption) *Iter[Asset] {
	return newIter(ctx, params.values(), func(ctx context.Context, q url.Values) (*List[Asset], error) {
		var out List[Asset]
		err := s.c.doList(ctx, assetsPath(projectID), q, &out, opts)
		return &out, err
	})
}

// Get returns one asset.
func (s *AssetsService) Get(ctx context.Context, projectID, assetID string, opts ...RequestOption) (*Asset, error) {
	var out Asset
	if err := s.c.do(ctx, http.MethodGet, assetsPath(projectID)+"/"+esc(assetID), nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Create adds an asset to a project.
func (s *AssetsService) Create(ctx context.Context, projectID string, params *AssetCreateParams, opts ...RequestOption) (*Asset, error) {
	var out Asset
	if err := s.c.do(ctx, http.MethodPost, assetsPath(projectID), nil, params, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Update changes the fields set in params.
func (s *AssetsService) Update(ctx context.Context, projectID, assetID string, params *AssetUpdateParams, opts ...RequestOption) (*Asset, error) {
	if params == nil {
		params = &AssetUpdateParams{}
	}
	var out Asset
	if err := s.c.do(ctx, http.MethodPut, assetsPath(projectID)+"/"+esc(assetID), nil, params, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete deletes an asset.
func (s *AssetsService) Delete(ctx context.Context, projectID, assetID string, opts ...RequestOption) error {
	return s.c.do(ctx, http.MethodDelete, assetsPath(projectID)+"/"+esc(assetID), nil, nil, nil, opts)
}

// MembersService: /account/members.
type MembersService struct{ c *Client }

// List returns the account's members and pending invitations (Meta.Total holds their number).
func (s *MembersService) List(ctx context.Context, opts ...RequestOption) (*List[Member], error) {
	var out List[Member]
	if err := s.c.doList(ctx, "/account/members", nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Invite invites someone by email with a role (viewer, editor, admin).
func (s *MembersService) Invite(ctx context.Context, params *MemberInviteParams, opts ...RequestOption) (*Member, error) {
	var out Member
	if err := s.c.do(ctx, http.MethodPost, "/account/members/invite", nil, params, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Update changes a member's role.
func (s *MembersService) Update(ctx context.Context, memberID string, params *MemberUpdateParams, opts ...RequestOption) (*Member, error) {
	var out Member
	if err := s.c.do(ctx, http.MethodPut, "/account/members/"+esc(memberID), nil, params, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Remove removes a member (or withdraws an invitation).
func (s *MembersService) Remove(ctx context.Context, memberID string, opts ...RequestOption) error {
	return s.c.do(ctx, http.MethodDelete, "/account/members/"+esc(memberID), nil, nil, nil, opts)
}

// AccountService: /account.
type AccountService struct{ c *Client }

// Get returns the account.
func (s *AccountService) Get(ctx context.Context, opts ...RequestOption) (*Account, error) {
	var out Account
	if err := s.c.do(ctx, http.MethodGet, "/account", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Update changes the fields set in params (name, overlap policy).
func (s *AccountService) Update(ctx context.Context, params *AccountUpdateParams, opts ...RequestOption) (*Account, error) {
	var out Account
	if err := s.c.do(ctx, http.MethodPut, "/account", nil, params, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// UsageService: /account/usage.
type UsageService struct{ c *Client }

// Get returns the current billing period's usage and limits.
func (s *UsageService) Get(ctx context.Context, opts ...RequestOption) (*Usage, error) {
	var out Usage
	if err := s.c.do(ctx, http.MethodGet, "/account/usage", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// WebhooksService: /webhooks.
type WebhooksService struct{ c *Client }

// List returns the account's webhooks.
func (s *WebhooksService) List(ctx context.Context, opts ...RequestOption) (*List[Webhook], error) {
	var out List[Webhook]
	if err := s.c.doList(ctx, "/webhooks", nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Get returns one webhook.
func (s *WebhooksService) Get(ctx context.Context, id string, opts ...RequestOption) (*Webhook, error) {
	var out Webhook
	if err := s.c.do(ctx, http.MethodGet, "/webhooks/"+esc(id), nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Create registers a webhook; the result's Secret is the signing secret to verify deliveries with.
func (s *WebhooksService) Create(ctx context.Context, params *WebhookCreateParams, opts ...RequestOption) (*Webhook, error) {
	var out Webhook
	if err := s.c.do(ctx, http.MethodPost, "/webhooks", nil, params, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Update changes the fields set in params.
func (s *WebhooksService) Update(ctx context.Context, id string, params *WebhookUpdateParams, opts ...RequestOption) (*Webhook, error) {
	if params == nil {
		params = &WebhookUpdateParams{}
	}
	var out Webhook
	if err := s.c.do(ctx, http.MethodPut, "/webhooks/"+esc(id), nil, params, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete removes a webhook.
func (s *WebhooksService) Delete(ctx context.Context, id string, opts ...RequestOption) error {
	return s.c.do(ctx, http.MethodDelete, "/webhooks/"+esc(id), nil, nil, nil, opts)
}

// Test sends a test event to the webhook's endpoint and returns the delivery's log entry.
func (s *WebhooksService) Test(ctx context.Context, id string, opts ...RequestOption) (*DeliveryLog, error) {
	var out DeliveryLog
	if err := s.c.do(ctx, http.MethodPost, "/webhooks/"+esc(id)+"/test", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Logs returns one page of the webhook's delivery log.
func (s *WebhooksService) Logs(ctx context.Context, id string, params *DeliveryLogListParams, opts ...RequestOption) (*List[DeliveryLog], error) {
	var out List[DeliveryLog]
	if err := s.c.doList(ctx, "/webhooks/"+esc(id)+"/logs", params.values(), &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// LogsAll iterates over the webhook's whole delivery log.
func (s *WebhooksService) LogsAll(ctx context.Context, id string, params *DeliveryLogListParams, opts ...RequestOption) *Iter[DeliveryLog] {
	return newIter(ctx, params.values(), func(ctx context.Context, q url.Values) (*List[DeliveryLog], error) {
		var out List[DeliveryLog]
		err := s.c.doList(ctx, "/webhooks/"+esc(id)+"/logs", q, &out, opts)
		return &out, err
	})
}

// Redeliver sends a logged delivery's event again (same event id, a new attempt).
func (s *WebhooksService) Redeliver(ctx context.Context, id, logID string, opts ...RequestOption) (*DeliveryLog, error) {
	var out DeliveryLog
	if err := s.c.do(ctx, http.MethodPost, "/webhooks/"+esc(id)+"/logs/"+esc(logID)+"/redeliver", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// EventsService: /events (beyond the spec: catching up on events after an outage).
type EventsService struct{ c *Client }

// List returns one page of the account's events.
func (s *EventsService) List(ctx context.Context, params *EventListParams, opts ...RequestOption) (*List[Event], error) {
	var out List[Event]
	if err := s.c.doList(ctx, "/events", params.values(), &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListAll iterates over every event matching params.
func (s *EventsService) ListAll(ctx context.Context, params *EventListParams, opts ...RequestOption) *Iter[Event] {
	return newIter(ctx, params.values(), func(ctx context.Context, q url.Values) (*List[Event], error) {
		var out List[Event]
		err := s.c.doList(ctx, "/events", q, &out, opts)
		return &out, err
	})
}

// AuthService: /auth.
type AuthService struct{ c *Client }

// Verify describes the client's credential (GET /auth/verify).
func (s *AuthService) Verify(ctx context.Context, opts ...RequestOption) (*TokenInfo, error) {
	var out TokenInfo
	if err := s.c.do(ctx, http.MethodGet, "/auth/verify", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}
