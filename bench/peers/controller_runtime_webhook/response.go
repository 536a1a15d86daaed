package main

import (
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// admissionResponse is a denial with 422 (Invalid), as kubeloop's handler answers.
func admissionResponse(message string) admissionv1.AdmissionResponse {
	return admissionv1.AdmissionResponse{
		Allowed: false,
		Result:  &metav1.Status{Code: 422, Reason: metav1.StatusReasonInvalid, Message: message},
	}
}
