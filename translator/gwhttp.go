package translator

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func (t *translation) httpRoutePiece(r *gatewayv1.HTTPRoute) *routePiece { return &routePiece{} }

func (t *translation) grpcRoutePiece(r *gatewayv1.GRPCRoute) *routePiece { return &routePiece{} }
