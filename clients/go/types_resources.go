package canopy

import (
	"encoding/json"
	"net/url"
	"time"
)

// Asset is a tracked item in a project.
type Asset struct {
	ID        string `json:"id"`
	ProjectID string `json:"project_id"`
	Name      string `json:"name"`
	// Type is equipment, monitoring_station, point_of_interest, sensor or other.
	Type     string `json:"type"`
	Location *Point `json:"location"`
	// Status is active, inactive, maintenance or retired.
	Status    string                 `json:"status"`
	Metadata  map[string]interface{} `json:"metadata"`
	CreatedAt time.Time              `json:"created_at"`
	UpdatedAt time.Time              `json:"updated_at"`
}

// AssetCreateParams is the body of POST /projects/{id}/assets.
type AssetCreateParams struct {
	Name     string                 `json:"name"`
	Type     string                 `json:"type"`
	Location *Point                 `json:"location,omitempty"`
	Status   *string                `json:"status,omitempty"`
	Metadata map[string]interface{} `json:"metadata,omitempty"`
}

// AssetUpdateParams is the body of PUT /projects/{id}/assets/{asset_id}: only the fields set are sent.
type AssetUpdateParams struct {
	Name     *string                `json:"name,omitempty"`
	Type     *string                `json:"type,omitempty"`
	Location *Point                 `json:"location,omitempty"`
	Status   *string                `json:"status,omitempty"`
	Metadata map[string]interface{} `json:"metadata,omitempty"`
}

// AssetListParams are the query of GET /projects/{id}/assets.
type AssetListParams struct {
	ListParams
	Type   *string
	Status *string
	// Search is a case-insensitive substring (3 to 200 characters) of the name.
	Search *string
}

func (p *AssetListParams) values() url.Values {
	if p == nil {
		return url.Values{}
	}
	v := p.ListParams.values()
	setOpt(v, "type", p.Type)
	setOpt(v, "status", p.Status)
	setOpt(v, "search", p.Search)
	return v
}

// Member is a member of the account (or an invitation, Status "invited").
type Member struct {
	ID    string  `json:"id"`
	Email string  `json:"email"`
	Name  *string `json:"name"`
	// Role is owner, admin, editor or viewer.
	Role         string     `json:"role"`
	Permissions  []string   `json:"permissions"`
	Status       string     `json:"status"`
	JoinedAt     *time.Time `json:"joined_at"`
	LastActiveAt *time.Time `json:"last_active_at"`
}

// MemberInviteParams is the body of POST /account/members/invite.
type MemberInviteParams struct {
	Email string `json:"email"`
	// Role is viewer, editor or admin.
	Role string `json:"role"`
}

// MemberUpdateParams is the body of PUT /account/members/{id}.
type MemberUpdateParams struct {
	Role string `json:"role"`
}

// Account is the account the credential belongs to.
type Account struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Slug string `json:"slug"`
	Type string `json:"type"`
	Plan string `json:"plan"`
	// OverlapPolicy is OverlapPolicyWarn or OverlapPolicyReject.
	OverlapPolicy string       `json:"overlap_policy"`
	Usage         AccountUsage `json:"usage"`
	CreatedAt     time.Time    `json:"created_at"`
}

// AccountUsage is the usage summary carried by Account.
type AccountUsage struct {
	Hectares float64 `json:"hectares"`
	Projects int     `json:"projects"`
	Members  int     `json:"members"`
}

// Overlap policies of an account.
const (
	// OverlapPolicyWarn: writes succeed and report overlaps in Project.Overlaps (and emit
	// EventProjectOverlapDetected).
	OverlapPolicyWarn = "warn"
	// OverlapPolicyReject: a write whose boundary overlaps another active or draft project is
	// refused with 409 CONFLICT (IsConflict) and nothing is stored.
	OverlapPolicyReject = "reject"
)

// AccountUpdateParams is the body of PUT /account: only the fields set are sent.
type AccountUpdateParams struct {
	Name *string `json:"name,omitempty"`
	// OverlapPolicy is OverlapPolicyWarn or OverlapPolicyReject.
	OverlapPolicy *string `json:"overlap_policy,omitempty"`
}

// Usage is GET /account/usage: the current billing period's figures and limits.
type Usage struct {
	Period struct {
		Start time.Time `json:"start"`
		End   time.Time `json:"end"`
	} `json:"period"`
	Hectares struct {
		Current    float64 `json:"current"`
		Limit      float64 `json:"limit"`
		Percentage float64 `json:"percentage"`
	} `json:"hectares"`
	Projects struct {
		Active   int `json:"active"`
		Archived int `json:"archived"`
		Total    int `json:"total"`
	} `json:"projects"`
	Members struct {
		Current int `json:"current"`
		Limit   int `json:"limit"`
	} `json:"members"`
	APIRequests struct {
		Current int64 `json:"current"`
		Limit   int64 `json:"limit"`
	} `json:"api_requests"`
}

// Webhook is a registered endpoint.
type Webhook struct {
	ID             string     `json:"id"`
	URL            string     `json:"url"`
	Events         []string   `json:"events"`
	Description    *string    `json:"description"`
	Enabled        bool       `json:"enabled"`
	DisabledReason *string    `json:"disabled_reason"`
	DisabledAt     *time.Time `json:"disabled_at"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	// Secret is the signing secret; the service returns it when the webhook is created.
	Secret string `json:"secret,omitempty"`
}

// WebhookCreateParams is the body of POST /webhooks.
type WebhookCreateParams struct {
	URL string `json:"url"`
	// Events are event types (EventProjectCreated…) or "*" for all.
	Events []string `json:"events"`
	// Secret is the signing secret; the service generates one when nil.
	Secret      *string `json:"secret,omitempty"`
	Description *string `json:"description,omitempty"`
	Enabled     *bool   `json:"enabled,omitempty"`
}

// WebhookUpdateParams is the body of PUT /webhooks/{id}: only the fields set are sent.
type WebhookUpdateParams struct {
	URL         *string  `json:"url,omitempty"`
	Events      []string `json:"events,omitempty"`
	Description *string  `json:"description,omitempty"`
	Enabled     *bool    `json:"enabled,omitempty"`
}

// DeliveryLog is one delivery attempt of an event to a webhook.
type DeliveryLog struct {
	ID        string `json:"id"`
	EventID   string `json:"event_id"`
	EventType string `json:"event_type"`
	// Status is success, failed, pending or canceled.
	Status         string     `json:"status"`
	Attempt        int        `json:"attempt"`
	ResponseCode   *int       `json:"response_code"`
	ResponseTimeMS *int       `json:"response_time_ms"`
	Error          *string    `json:"error"`
	ErrorClass     *string    `json:"error_class"`
	DeliveredAt    *time.Time `json:"delivered_at"`
	NextRetryAt    *time.Time `json:"next_retry_at"`
}

// DeliveryLogListParams are the query of GET /webhooks/{id}/logs.
type DeliveryLogListParams struct {
	ListParams
	Status    *string
	EventType *string
}

func (p *DeliveryLogListParams) values() url.Values {
	if p == nil {
		return url.Values{}
	}
	v := p.ListParams.values()
	setOpt(v, "status", p.Status)
	setOpt(v, "event_type", p.EventType)
	return v
}

// Event types.
const (
	EventProjectCreated         = "project.created"
	EventProjectUpdated         = "project.updated"
	EventProjectDeleted         = "project.deleted"
	EventProjectArchived        = "project.archived"
	EventProjectRestored        = "project.restored"
	EventAssetCreated           = "asset.created"
	EventAssetUpdated           = "asset.updated"
	EventAssetDeleted           = "asset.deleted"
	EventAssetStatusChanged     = "asset.status_changed"
	EventMemberInvited          = "member.invited"
	EventMemberJoined           = "member.joined"
	EventMemberUpdated          = "member.updated"
	EventMemberRemoved          = "member.removed"
	EventSubscriptionCreated    = "subscription.created"
	EventSubscriptionUpdated    = "subscription.updated"
	EventSubscriptionCanceled   = "subscription.canceled"
	EventInvoicePaid            = "invoice.paid"
	EventInvoiceFailed          = "invoice.failed"
	EventUsageThresholdReached  = "usage.threshold_reached"
	EventUsageLimitExceeded     = "usage.limit_exceeded"
	EventProjectOverlapDetected = "project.overlap_detected"
	EventImportCompleted        = "import.completed"
)

// Event is the envelope of an event, as delivered to webhooks and listed by GET /events.
type Event struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	// Data is the event-specific payload; decode it with DecodeData.
	Data    json.RawMessage `json:"data"`
	Account struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"account"`
}

// DecodeData decodes the event's data into v (e.g. a *ProjectEventData for project events).
func (e *Event) DecodeData(v interface{}) error { return json.Unmarshal(e.Data, v) }

// ProjectEventData is the data of project events: the project's fields and who created it.
type ProjectEventData struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Slug         string    `json:"slug"`
	Description  *string   `json:"description"`
	AreaHectares float64   `json:"area_hectares"`
	Status       string    `json:"status"`
	CreatedAt    time.Time `json:"created_at"`
	CreatedBy    *struct {
		ID    string `json:"id"`
		Email string `json:"email"`
	} `json:"created_by,omitempty"`
}

// ProjectOverlapEventData is the data of EventProjectOverlapDetected: the project written and the
// overlaps its boundary has with the account's other projects.
type ProjectOverlapEventData struct {
	Project struct {
		ID           string  `json:"id"`
		Name         string  `json:"name"`
		Slug         string  `json:"slug"`
		AreaHectares float64 `json:"area_hectares"`
		Status       string  `json:"status"`
	} `json:"project"`
	Overlaps []ProjectOverlap `json:"overlaps"`
	Complete bool             `json:"complete"`
}

// EventListParams are the query of GET /events.
type EventListParams struct {
	ListParams
	Type          *string
	CreatedAfter  *time.Time
	CreatedBefore *time.Time
}

func (p *EventListParams) values() url.Values {
	if p == nil {
		return url.Values{}
	}
	v := p.ListParams.values()
	setOpt(v, "type", p.Type)
	if p.CreatedAfter != nil {
		v.Set("created_after", p.CreatedAfter.UTC().Format(time.RFC3339Nano))
	}
	if p.CreatedBefore != nil {
		v.Set("created_before", p.CreatedBefore.UTC().Format(time.RFC3339Nano))
	}
	return v
}

// TokenInfo is GET /auth/verify: what the credential is and may do.
type TokenInfo struct {
	Valid bool `json:"valid"`
	// Type is api_key, service_token or oauth.
	Type        string     `json:"type"`
	Permissions []string   `json:"permissions"`
	AccountID   string     `json:"account_id"`
	ExpiresAt   *time.Time `json:"expires_at"`
}
